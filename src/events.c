/*
 * events.c - the event channel (--log-fd).
 *
 * MUST: each event is one line of valid UTF-8 JSON, "event" first, at
 * most STATUS_MAX bytes, written whole or not at all, and lines from
 * different threads never interleave.  MUST NOT block the launcher for
 * more than STATUS_WAIT_MS, print, or exit: a channel that fails is
 * closed and later events are dropped.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "status.h"

static int channel = -1;
static pthread_mutex_t channel_lock = PTHREAD_MUTEX_INITIALIZER;

/* From main.c, before anything runs that could emit: FD or -1. */
void
events_open(int fd)
{
	channel = fd;
}

/* The descriptor to keep open while the command runs, or -1. */
int
events_fd(void)
{
	int fd;

	pthread_mutex_lock(&channel_lock);
	fd = channel;
	pthread_mutex_unlock(&channel_lock);
	return fd;
}

bool
events_wanted(void)
{
	return events_fd() >= 0;
}

void
event_start(struct event *ev, const char *name)
{
	memset(ev, 0, sizeof(*ev));
	buf_adds(&ev->line, "{\"event\":");
	status_json_string(&ev->line, name, EVENT_FIELD_MAX);
}

void
event_str(struct event *ev, const char *key, const char *value)
{
	buf_addc(&ev->line, ',');
	status_json_string(&ev->line, key, EVENT_FIELD_MAX);
	buf_addc(&ev->line, ':');
	status_json_string(&ev->line, value, EVENT_FIELD_MAX);
}

void
event_int(struct event *ev, const char *key, long long value)
{
	buf_addc(&ev->line, ',');
	status_json_string(&ev->line, key, EVENT_FIELD_MAX);
	buf_addf(&ev->line, ":%lld", value);
}

void
event_emit(struct event *ev)
{
	buf_adds(&ev->line, "}\n");
	pthread_mutex_lock(&channel_lock);
	if (channel >= 0 && ev->line.len <= STATUS_MAX &&
	    status_write_fd(channel, ev->line.s) < 0) {
		(void)close(channel);
		channel = -1;
	}
	pthread_mutex_unlock(&channel_lock);
	buf_clear(&ev->line);
}
