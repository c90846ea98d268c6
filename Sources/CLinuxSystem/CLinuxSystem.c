#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
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
