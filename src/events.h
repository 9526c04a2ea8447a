/*
 * events.h - the event channel: one JSON line per event, on the
 * descriptor the caller named with --log-fd (EVENTS in sbox-exec(1)).
 *
 * Unlike the status, which is said once before the command starts, events
 * come while it runs, from any thread of the launcher.  A line is
 * written whole with one write(2) or not at all; a channel that fails or
 * stays full is given up, never waited on for long.
 */
#ifndef SBOX_EVENTS_H
#define SBOX_EVENTS_H

#include <stdbool.h>

#include "util.h"

#define EVENT_FIELD_MAX 1024 /* bytes of one string field, quotes included */

struct event {
	struct buf line;
};

void events_open(int);
int events_fd(void);
bool events_wanted(void);
void event_start(struct event *, const char *);
void event_str(struct event *, const char *, const char *);
void event_int(struct event *, const char *, long long);
void event_emit(struct event *);
void event_emit_nowait(struct event *);
void event_emit_last(struct event *);

#endif
