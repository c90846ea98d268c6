#ifndef CLINUXSYSTEM_H
#define CLINUXSYSTEM_H
// Linux calls Swift's Glibc module does not expose. Prefixed with the module name, as CNIOLinux does.

/// Flags for CLinuxSystem_renameat2 (values from <linux/fs.h>).
#define CLINUXSYSTEM_RENAME_NOREPLACE (1 << 0)
#define CLINUXSYSTEM_RENAME_EXCHANGE  (1 << 1)

/// renameat2(2): atomically exchange (RENAME_EXCHANGE) or refuse to replace (RENAME_NOREPLACE).
/// Returns 0 or -1 with errno set. Glibc's wrapper is hidden behind _GNU_SOURCE, which Swift does not define.
int CLinuxSystem_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// pthread_setname_np(pthread_self(), name): names the calling thread for the kernel (`top -H`, `perf`, `gdb`);
/// at most 15 bytes. Returns 0 or an error number. Also hidden behind _GNU_SOURCE.
int CLinuxSystem_nameThisThread(const char *name);

/// sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE): starts writeback of just-written bytes
/// without waiting for it, so a later fsync finds them on their way to the device and returns sooner.
/// Returns 0 or -1 with errno set. Hidden behind _GNU_SOURCE too.
int CLinuxSystem_startWriteback(int fd, long long offset, long long count);

/// syncfs(2): writes out every dirty page and inode of the file system holding `fd` and waits; 0 or -1 with errno.
/// For a restart that must make what a killed process wrote durable before it records anything newer.
int CLinuxSystem_syncFileSystem(int fd);

/// Starts `path` with `argv` (NULL-terminated) as a detached process: its own session (setsid), standard
/// input, output and error on /dev/null, default signal dispositions and an empty signal mask, and nobody
/// waits for it (it is reparented when the caller exits). For work that may outlive the command that started
/// it (emptying a store's trash). Returns the child's pid or -1 with errno set.
int CLinuxSystem_spawnDetached(const char *path, char *const argv[]);

/// errno as a plain function (thread-local errno is awkward to read from Swift in some contexts).
int CLinuxSystem_errno(void);

/// The credentials of the process at the other end of a connected Unix socket (SO_PEERCRED): its user id and
/// process id. Returns 0, or -1 with errno set.
int CLinuxSystem_peerCredentials(int fd, unsigned int *uid, int *pid);
/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK): the next connection, close-on-exec and non-blocking.
int CLinuxSystem_acceptNonBlocking(int fd);

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): a counter another thread writes to wake a poll loop.
int CLinuxSystem_eventfd(void);

/// mallopt(M_ARENA_MAX, count): glibc's malloc keeps at most `count` arenas, so memory one thread frees is
/// reused by the others instead of staying resident in that thread's arena. Returns 1 on success, 0 if refused.
int CLinuxSystem_limitMallocArenas(int count);

/// malloc_trim(0): glibc's malloc gives the free pages of every arena back to the kernel. Returns 1 if any
/// memory was released.
int CLinuxSystem_trimMalloc(void);
#endif
