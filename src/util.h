/*
 * util.h - allocation that dies on exhaustion, cleanup attributes, string
 * vectors, buffers and the one way arrays grow, lexical path helpers;
 * and the few helpers every module shares that touch the process: the
 * messages on stderr (util_say), the executable's directory, the clock.
 *
 * Owns nothing global.  MUST NOT print except through util_say() and
 * xdie() on OOM.
 */
#ifndef SBOX_UTIL_H
#define SBOX_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define cleanup_free __attribute__((cleanup(util_freep)))
#define cleanup_fd __attribute__((cleanup(util_closep)))
#define cleanup_strv __attribute__((cleanup(strv_clear)))
#define cleanup_buf __attribute__((cleanup(buf_clear)))

/* The number of elements of an array (not of a pointer). */
#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

#define SBOX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SBOX_NORETURN __attribute__((noreturn))

void util_freep(void *);
void util_closep(int *);

/* Hand over ownership: returns *pp and leaves NULL (or -1) behind. */
#define steal_pointer(pp)                                                      \
	({                                                                     \
		__typeof__(*(pp)) steal_tmp__ = *(pp);                         \
		*(pp) = NULL;                                                  \
		steal_tmp__;                                                   \
	})
int steal_fd(int *);

void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xreallocarray(void *, size_t, size_t);
void *util_grow(void *, size_t, size_t *, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
char *xasprintf(const char *, ...) SBOX_PRINTF(1, 2);
char *xvasprintf(const char *, va_list) SBOX_PRINTF(1, 0);

/* A NULL-terminated vector of owned strings. */
struct strv {
	char **v;
	size_t n;
	size_t cap;
};

void strv_add(struct strv *, const char *);
void strv_take(struct strv *, char *);
void strv_addf(struct strv *, const char *, ...) SBOX_PRINTF(2, 3);
void strv_clear(struct strv *);

/* A growable byte buffer, always NUL-terminated. */
struct buf {
	char *s;
	size_t len;
	size_t cap;
};

void buf_add(struct buf *, const void *, size_t);
void buf_adds(struct buf *, const char *);
void buf_addc(struct buf *, char);
void buf_addf(struct buf *, const char *, ...) SBOX_PRINTF(2, 3);
void buf_clear(struct buf *);
char *buf_steal(struct buf *);

char *util_path_join(const char *, const char *);
char *util_path_absolute(const char *, const char *);
void util_path_append(struct buf *, const char *, size_t);
size_t util_path_depth(const char *);
bool util_path_within(const char *, const char *);
int util_parse_fd(const char *, int *);
void util_shell_quote(struct buf *, const char *);
void util_utf8_sanitize(struct buf *, const char *, size_t);
void util_terminal_safe(struct buf *, const char *, size_t);
void util_line_safe(struct buf *, const char *, size_t);
void util_say(const char *, ...) SBOX_PRINTF(1, 2);
int util_open(const char *, int, mode_t);
int util_dup(int, int);
char *util_realpath(const char *);
void util_realpath_keep(bool);
bool util_realpath_known(const char *, char **);
uid_t util_uid(void);
int util_lstat(const char *, struct stat *);
int util_dir_each(int, bool (*)(void *, const char *, unsigned char), void *);
char *util_exe_dir(void);
ssize_t util_read_small(const char *, char *, size_t);
long util_now_ms(void);
size_t util_text_hash(const char *s);

#endif
