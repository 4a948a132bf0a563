/*
 * cleanup.c - what the program leaves behind when it is stopped, and the standard input.
 *
 * Signals: every output a command will write is registered before the work starts
 * (cli_check_paths does it). On SIGINT, SIGTERM or SIGHUP the handler removes the temporary
 * files of this process beside each of them - the library names them
 * TARGET.sits-tmp.PID.XXXXXX (sits_output.h) - and any file registered by name (a sweep's
 * job files), stops the registered child processes, and dies of the same signal, so the
 * shell sees the usual status (130 for Ctrl-C). The handler uses only async-signal-safe calls
 * (open, getdents64, unlinkat, kill, raise); the names it needs are prepared beforehand.
 *
 * Standard input: "-" as the scenario or a trace is read through /dev/stdin. The readers
 * open a file more than once (a trace's format is sniffed first), so a pipe is first copied
 * into an anonymous memory file (memfd) that becomes the standard input. A named pipe or a
 * shell's <(...) given as an input is held the same way (cli_input).
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sits_output.h"

#define MAX_WATCH 64
#define MAX_CHILD 256

/* The process's one piece of cleanup state (the CLI's, never the library's). */
static struct {
  char dir[MAX_WATCH][4096];   /* folder of each output */
  char prefix[MAX_WATCH][512]; /* NAME.sits-tmp.PID. */
  size_t n_watch;
  char file[MAX_CHILD][4300]; /* files removed by name */
  size_t n_file;
  pid_t child[MAX_CHILD];
  size_t n_child;
  bool stdin_used;
  char held[8][32];     /* /dev/fd/N of each named pipe held in memory (cli_input) */
  char held_as[8][512]; /* the name it was given as, for messages */
  size_t n_held;
} st;

/* Removes the entries of @p dir whose names start with @p prefix (async-signal-safe). */
static void remove_prefixed(const char *dir, const char *prefix) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  size_t np = strlen(prefix);
  char buf[8192];
  long n;
  while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
    for (long off = 0; off < n;) {
      struct {
        unsigned long long ino;
        long long off;
        unsigned short reclen;
        unsigned char type;
        char name[];
      } *e = (void *)(buf + off);
      if (strncmp(e->name, prefix, np) == 0)
        unlinkat(fd, e->name, 0);
      off += e->reclen;
    }
  close(fd);
}

static void on_signal(int sig) {
  for (size_t i = 0; i < st.n_child; i++)
    if (st.child[i] > 0)
      kill(st.child[i], SIGTERM);
  for (size_t i = 0; i < st.n_watch; i++)
    remove_prefixed(st.dir[i], st.prefix[i]);
  for (size_t i = 0; i < st.n_file; i++)
    unlink(st.file[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

void cli_on_stop(void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigfillset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

void cli_cleanup_install(void) {
  cli_on_stop(on_signal);
}

void cli_cleanup_default(void) {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
}

/* The file @p path will be written to: links followed, as the library's writer does. */
static void target_of(const char *path, char *out, size_t size) {
  char *real = realpath(path, NULL);
  if (real) {
    snprintf(out, size, "%s", real);
    free(real);
    return;
  }
  char d[4096], b[4096];
  snprintf(d, sizeof d, "%s", path);
  snprintf(b, sizeof b, "%s", path);
  const char *dir = dirname(d), *base = basename(b);
  char *rdir = realpath(dir, NULL);
  if (snprintf(out, size, "%s/%s", rdir ? rdir : dir, base) >= (int)size)
    out[0] = '\0';
  free(rdir);
}

void cli_cleanup_watch(const char *path) {
  if (!path || !*path || strcmp(path, "-") == 0 || st.n_watch == MAX_WATCH)
    return;
  char target[4096], tmp[4096];
  target_of(path, target, sizeof target);
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  snprintf(tmp, sizeof tmp, "%s", target);
  snprintf(st.dir[st.n_watch], sizeof st.dir[0], "%s", dirname(tmp));
  snprintf(tmp, sizeof tmp, "%s", target);
  snprintf(st.prefix[st.n_watch], sizeof st.prefix[0], "%s" SITS_OUTPUT_TEMP_TAG "%ld.",
           basename(tmp), (long)getpid());
  st.n_watch++;
  sigprocmask(SIG_SETMASK, &old, NULL);
}

void cli_cleanup_file(const char *path) {
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  if (st.n_file < MAX_CHILD)
    snprintf(st.file[st.n_file++], sizeof st.file[0], "%s", path);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

void cli_cleanup_child(int pid) {
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  if (st.n_child < MAX_CHILD)
    st.child[st.n_child++] = pid;
  sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The largest standard input copied into memory. */
#define MAX_STDIN ((size_t)1 << 30)

bool cli_is_stdin(const char *path) {
  if (strcmp(path, "-") == 0)
    return true;
  if (strcmp(path, "/dev/stdin") && strcmp(path, "/dev/fd/0") && strcmp(path, "/proc/self/fd/0"))
    return false;
  if (st.stdin_used) /* a second input on it: refused by cli_stdin, as for '-' */
    return true;
  struct stat s; /* a file redirected in opens as itself; a pipe is read once, as '-' */
  return fstat(STDIN_FILENO, &s) == 0 && !S_ISREG(s.st_mode);
}

/* Copies what @p in yields up to its end into an anonymous memory file, positioned at its start:
 * the memfd, or -1 with the error printed. */
static int hold(int in, const char *what, const char *name) {
  int fd = memfd_create("sitsenergy-input", MFD_CLOEXEC);
  if (fd < 0) {
    cli_error("%s: cannot hold %s: %s", what, name, strerror(errno));
    return -1;
  }
  char buf[65536];
  size_t total = 0;
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n < 0)
      continue;
    if (total == 0 && memchr(buf, '\0', (size_t)n)) {
      cli_error("%s: %s is not text (a NUL byte in its first bytes)", what, name);
      close(fd);
      return -1;
    }
    total += (size_t)n;
    if (total > MAX_STDIN || write(fd, buf, (size_t)n) != n) {
      cli_error("%s: %s is larger than %zu MiB or cannot be held", what, name, MAX_STDIN >> 20);
      close(fd);
      return -1;
    }
  }
  if (n < 0 || lseek(fd, 0, SEEK_SET) != 0) {
    cli_error("%s: cannot read %s: %s", what, name, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

const char *cli_input(const char *path, const char *what) {
  if (cli_is_stdin(path)) { /* "--trace -", "the scenario '-'" */
    char named[128];
    snprintf(named, sizeof named, what[0] == '-' ? "%s -" : "%s '-'", what);
    return cli_stdin(named);
  }
  struct stat s;
  if (stat(path, &s) != 0 || !(S_ISFIFO(s.st_mode) || S_ISSOCK(s.st_mode)))
    return path; /* a file (or what the reader will refuse with its own message) */
  /* A pipe is read once; the readers open their input more than once (a trace's format is
   * sniffed first), and a second open of a pipe reads on from where the first stopped (rows
   * lost) or waits for a writer that has gone. Held in memory, it reads like a file. */
  unsigned fdno;
  char tail;
  if ((sscanf(path, "/dev/fd/%u%c", &fdno, &tail) == 1 ||
       sscanf(path, "/proc/self/fd/%u%c", &fdno, &tail) == 1) &&
      fdno > 2) { /* a shell's <(...): the same name then opens the memory file */
    int fd = hold((int)fdno, what, path);
    if (fd < 0)
      return NULL;
    int ok = dup2(fd, (int)fdno) >= 0;
    close(fd);
    if (!ok) {
      cli_error("%s: cannot hold %s: %s", what, path, strerror(errno));
      return NULL;
    }
    return path;
  }
  if (st.n_held == sizeof st.held / sizeof st.held[0]) {
    cli_error("%s: %s: at most %zu named pipes as inputs", what, path,
              sizeof st.held / sizeof st.held[0]);
    return NULL;
  }
  int in = open(path, O_RDONLY | O_CLOEXEC); /* waits for the writer, as a reader of a pipe does */
  if (in < 0) {
    cli_error("%s: cannot open %s: %s", what, path, strerror(errno));
    return NULL;
  }
  int fd = hold(in, what, path);
  close(in);
  if (fd < 0)
    return NULL;
  snprintf(st.held[st.n_held], sizeof st.held[0], "/dev/fd/%d", fd); /* kept open to the end */
  snprintf(st.held_as[st.n_held], sizeof st.held_as[0], "%s", path);
  return st.held[st.n_held++];
}

const char *cli_input_name(const char *msg, char *buf, size_t size) {
  if (st.n_held == 0 || size == 0)
    return msg;
  size_t w = 0;
  for (const char *p = msg; *p && w + 1 < size;) {
    size_t k = 0, len = 0;
    for (; k < st.n_held; k++) { /* /dev/fd/5, not /dev/fd/51 */
      len = strlen(st.held[k]);
      if (strncmp(p, st.held[k], len) == 0 && !(p[len] >= '0' && p[len] <= '9'))
        break;
    }
    if (k < st.n_held) {
      w += (size_t)snprintf(buf + w, size - w, "%s", st.held_as[k]);
      w = w < size ? w : size - 1;
      p += len;
    } else
      buf[w++] = *p++;
  }
  buf[w] = '\0';
  return buf;
}

const char *cli_stdin(const char *what) {
  if (st.stdin_used) {
    cli_error("%s: the standard input ('-') is already read for another input", what);
    return NULL;
  }
  st.stdin_used = true;
  struct stat s;
  if (fstat(STDIN_FILENO, &s) != 0) {
    cli_error("%s: no standard input: %s", what, strerror(errno));
    return NULL;
  }
  if (S_ISREG(s.st_mode)) /* `< file`: /dev/stdin opens the file itself */
    return "/dev/stdin";
  if (S_ISCHR(s.st_mode) && isatty(STDIN_FILENO)) {
    cli_error("%s: '-' reads the standard input, which is a terminal: pipe or redirect a file",
              what);
    return NULL;
  }
  int fd = hold(STDIN_FILENO, what, "the standard input");
  if (fd < 0)
    return NULL;
  if (dup2(fd, STDIN_FILENO) < 0) {
    cli_error("%s: cannot hold the standard input: %s", what, strerror(errno));
    close(fd);
    return NULL;
  }
  close(fd);
  return "/dev/stdin";
}
