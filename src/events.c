/*
 * events.c - the event channel (--log-fd).
 *
 * MUST: each event is one line of valid UTF-8 JSON, "event" first, at
 * most STATUS_MAX bytes, written whole or not at all, and lines from
 * different threads never interleave; nothing follows the last event
 * ("exit").  MUST NOT block the launcher for more than STATUS_WAIT_MS,
 * print, or exit: a channel that fails is closed and later events are
 * dropped.  The proxy's events, which a command can make by the
 * thousand, never wait: one that finds no room is dropped and counted,
 * and the channel stays open for the rest.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "status.h"

static int channel = -1;
static unsigned long long
    dropped; /* by event_emit_nowait(), for want of room */
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

/* EV's line on the channel, waiting at most WAIT_MS; the caller holds
 * channel_lock.  A channel that fails is closed; with COUNT, a line
 * that found no room is dropped and counted instead. */
static void
emit_locked(struct event *ev, long wait_ms, bool count)
{
	if (channel < 0 || ev->line.len > STATUS_MAX)
		return;
	if (status_write_fd_within(channel, ev->line.s, wait_ms) == 0)
		return;
	if (count && (errno == ETIMEDOUT || errno == EAGAIN)) {
		dropped++;
		return;
	}
	(void)close(channel);
	channel = -1;
}

void
event_emit(struct event *ev)
{
	buf_adds(&ev->line, "}\n");
	pthread_mutex_lock(&channel_lock);
	emit_locked(ev, STATUS_WAIT_MS, false);
	pthread_mutex_unlock(&channel_lock);
	buf_clear(&ev->line);
}

/* EV if the channel has room for it now, else dropped (and counted):
 * for events a command can cause in numbers, which must cost neither
 * the launcher's time nor the channel. */
void
event_emit_nowait(struct event *ev)
{
	buf_adds(&ev->line, "}\n");
	pthread_mutex_lock(&channel_lock);
	emit_locked(ev, 0, true);
	pthread_mutex_unlock(&channel_lock);
	buf_clear(&ev->line);
}

/*
 * The last event: EV, with "dropped" when events were dropped for want
 * of room, then the channel closed, under the lock, so that no other
 * thread's event can follow it.
 */
void
event_emit_last(struct event *ev)
{
	pthread_mutex_lock(&channel_lock);
	if (dropped > 0)
		event_int(ev, "dropped", (long long)dropped);
	buf_adds(&ev->line, "}\n");
	emit_locked(ev, STATUS_WAIT_MS, false);
	if (channel >= 0)
		(void)close(channel);
	channel = -1;
	pthread_mutex_unlock(&channel_lock);
	buf_clear(&ev->line);
}
