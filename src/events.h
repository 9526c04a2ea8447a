/* TEMPORARY stand-in until the event channel lands on main. */
#ifndef SBOX_EVENTS_H
#define SBOX_EVENTS_H

#include <stdbool.h>

#include "util.h"

struct event {
	struct buf line;
};

void events_open(int);
bool events_wanted(void);
void event_start(struct event *, const char *);
void event_str(struct event *, const char *, const char *);
void event_int(struct event *, const char *, long long);
void event_emit(struct event *);

#endif
