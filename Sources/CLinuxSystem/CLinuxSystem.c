#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CLinuxSystem.h"

int CLinuxSystem_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int CLinuxSystem_errno(void) { return errno; }

int CLinuxSystem_nameThisThread(const char *name) { return pthread_setname_np(pthread_self(), name); }

int CLinuxSystem_startWriteback(int fd, long long offset, long long count) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)count, SYNC_FILE_RANGE_WRITE);
}

int CLinuxSystem_syncFileSystem(int fd) { return syncfs(fd); }

int CLinuxSystem_spawnDetached(const char *path, char *const argv[]) {
    extern char **environ;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    sigset_t none, all;
    pid_t pid = -1;
    int error = posix_spawnattr_init(&attributes);
    if (error != 0) { errno = error; return -1; }
    error = posix_spawn_file_actions_init(&actions);
    if (error != 0) { posix_spawnattr_destroy(&attributes); errno = error; return -1; }
    sigemptyset(&none);
    sigfillset(&all);
    // A caller that ignores SIGINT/SIGTERM (the CLI while it runs) would pass that on: reset every signal.
    if (error == 0) error = posix_spawnattr_setsigmask(&attributes, &none);
    if (error == 0) error = posix_spawnattr_setsigdefault(&attributes, &all);
    if (error == 0) error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (error == 0) error = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (error == 0) error = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (error == 0) error = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    if (error == 0) error = posix_spawn(&pid, path, &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) { errno = error; return -1; }
    return (int)pid;
}

int CLinuxSystem_peerCredentials(int fd, unsigned int *uid, int *pid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = (unsigned int)credentials.uid;
    *pid = (int)credentials.pid;
    return 0;
}

int CLinuxSystem_acceptNonBlocking(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

int CLinuxSystem_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int CLinuxSystem_limitMallocArenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int CLinuxSystem_trimMalloc(void) {
    return malloc_trim(0);
}
