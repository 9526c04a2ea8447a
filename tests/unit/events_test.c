/* Unit tests of events.c: the event line, and lines from many threads. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "tap.h"
#include "util.h"

#define THREADS 8
#define PER_THREAD 200

static int pipefd[2];

static char *
read_all(int fd)
{
	struct buf b = { 0 };
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_add(&b, chunk, (size_t)n);
	buf_addc(&b, '\0');
	return buf_steal(&b);
}

static void *
reader(void *arg)
{
	(void)arg;
	return read_all(pipefd[0]);
}

static void *
writer(void *arg)
{
	long id = (long)arg;
	char *pad = xmalloc(900);

	memset(pad, 'a' + (int)id, 899);
	pad[899] = '\0';
	for (int i = 0; i < PER_THREAD; i++) {
		struct event ev;

		event_start(&ev, "test");
		event_int(&ev, "thread", id);
		event_str(&ev, "pad", pad);
		event_emit(&ev);
	}
	free(pad);
	return NULL;
}

static void
test_line(void)
{
	struct event ev;
	char *got;

	if (pipe(pipefd) < 0)
		exit(99);
	events_open(pipefd[1]);
	ok(events_wanted(), "a channel is open");
	event_start(&ev, "net-denied");
	event_str(&ev, "host", "evil.example\n\"\xff");
	event_int(&ev, "port", 443);
	event_int(&ev, "big", -9223372036854775807LL);
	event_emit(&ev);
	close(pipefd[1]);
	got = read_all(pipefd[0]);
	close(pipefd[0]);
	is_str(got,
	    "{\"event\":\"net-denied\",\"host\":\"evil.example\\n\\\"\xef\xbf\xbd\","
	    "\"port\":443,\"big\":-9223372036854775807}\n",
	    "one line, event first, strings escaped");
	free(got);
}

/* Long lines from many threads at once arrive whole, none lost. */
static void
test_threads(void)
{
	pthread_t w[THREADS], r;
	char *all, *line, *save = NULL;
	int count = 0, whole = 0;

	if (pipe(pipefd) < 0)
		exit(99);
	events_open(pipefd[1]);
	pthread_create(&r, NULL, reader, NULL);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&w[i], NULL, writer, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(w[i], NULL);
	close(pipefd[1]);
	pthread_join(r, (void **)&all);
	close(pipefd[0]);
	for (line = strtok_r(all, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		long id;
		char pad[901];

		count++;
		if (sscanf(line,
			"{\"event\":\"test\",\"thread\":%ld,\"pad\":\"%900[a-h]\"}",
			&id, pad) == 2 &&
		    pad[0] == 'a' + id &&
		    strspn(pad, (char[]){ pad[0], '\0' }) == 899)
			whole++;
	}
	ok(count == THREADS * PER_THREAD, "every event arrived (%d)", count);
	ok(whole == count, "every line whole (%d of %d)", whole, count);
	free(all);
}

/* A reader gone: the channel is given up, the writer goes on. */
static void
test_gone(void)
{
	struct event ev;

	if (pipe(pipefd) < 0)
		exit(99);
	close(pipefd[0]);
	events_open(pipefd[1]);
	event_start(&ev, "lost");
	event_emit(&ev);
	ok(!events_wanted(), "a failed channel is closed");
	event_start(&ev, "dropped");
	event_emit(&ev);
	ok(1, "later events are dropped without harm");
}

/*
 * A reader that does not keep up: the events that must not wait are
 * dropped and counted, at once, the channel kept; the last event comes
 * after all of them, says how many were dropped, and closes the channel.
 */
static void
test_full(void)
{
	struct event ev;
	pthread_t r;
	char *all, *last, pad[901];
	long start;
	int lines = 0, emitted = 500;
	unsigned long long dropped = 0;

	memset(pad, 'p', 900);
	pad[900] = '\0';
	if (pipe(pipefd) < 0)
		exit(99);
	events_open(pipefd[1]);
	start = util_now_ms();
	for (int i = 0; i < emitted; i++) {
		event_start(&ev, "net-denied");
		event_str(&ev, "pad", pad);
		event_emit_nowait(&ev);
	}
	ok(util_now_ms() - start < 1000, "a full channel is not waited on");
	ok(events_wanted(), "a full channel is kept");
	pthread_create(&r, NULL, reader, NULL);
	event_start(&ev, "exit");
	event_int(&ev, "code", 0);
	event_emit_last(&ev);
	ok(!events_wanted(), "the last event closes the channel");
	event_start(&ev, "late");
	event_emit_nowait(&ev);
	pthread_join(r, (void **)&all);
	close(pipefd[0]);
	for (char *p = all; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	last = strstr(all, "{\"event\":\"exit\"");
	ok(last != NULL &&
		sscanf(last, "{\"event\":\"exit\",\"code\":0,\"dropped\":%llu}",
		    &dropped) == 1 &&
		strchr(last, '\n')[1] == '\0',
	    "exit is last, with the count of dropped events");
	ok(dropped > 0 && lines - 1 + (int)dropped == emitted,
	    "every event arrived or was counted (%d + %llu of %d)", lines - 1,
	    dropped, emitted);
	free(all);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_line();
	test_threads();
	test_gone();
	test_full();
	return tap_done();
}
