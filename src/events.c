/* TEMPORARY stand-in until the event channel lands on main. */
#include "config.h"

#include <unistd.h>

#include "events.h"

static int events_channel = -1;

void
events_open(int fd)
{
	events_channel = fd;
}

bool
events_wanted(void)
{
	return events_channel >= 0;
}

void
event_start(struct event *ev, const char *name)
{
	ev->line = (struct buf){ 0 };
	buf_addf(&ev->line, "{\"event\":\"%s\"", name);
}

void
event_str(struct event *ev, const char *k, const char *v)
{
	buf_addf(&ev->line, ",\"%s\":\"%s\"", k, v);
}

void
event_int(struct event *ev, const char *k, long long v)
{
	buf_addf(&ev->line, ",\"%s\":%lld", k, v);
}

void
event_emit(struct event *ev)
{
	buf_adds(&ev->line, "}\n");
	if (events_channel >= 0)
		(void)!write(events_channel, ev->line.s, ev->line.len);
	buf_clear(&ev->line);
}
