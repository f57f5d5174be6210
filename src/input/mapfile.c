/* mapfile.c: big files mapped, with a SIGBUS guard for files truncated under us (see
 * mapfile.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include "sparkplan/mapfile.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The live mappings, read by the signal handler.  A handful of documents is open at once;
 * past that, files are read instead. */
#define MAX_MAPS 32

static struct {
    char *volatile start;
    volatile size_t len; /* the whole mapping, guard byte included, page-rounded */
} maps[MAX_MAPS];

static size_t page_size;
static struct sigaction previous_bus;
static bool handler_installed;

/* A read past the end of a file that shrank: zero pages from that page to the end of the
 * mapping, and the read goes on.  A SIGBUS anywhere else gets the previous disposition
 * (the faulting instruction runs again and raises it anew). */
static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)context;
    uintptr_t addr = (uintptr_t)info->si_addr;
    for (int i = 0; i < MAX_MAPS; i++) {
        uintptr_t start = (uintptr_t)maps[i].start, len = maps[i].len;
        if (!start || addr < start || addr >= start + len)
            continue;
        uintptr_t page = addr & ~(uintptr_t)(page_size - 1);
        /* Writable: clean-up may be writing its text over the mapping (mapfile_writable). */
        if (mmap((void *)page, start + len - page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
            return;
        break;
    }
    sigaction(sig, &previous_bus, NULL);
}

static bool install_handler(void)
{
    if (handler_installed)
        return true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &previous_bus) != 0)
        return false;
    handler_installed = true;
    return true;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

char *mapfile_open(int fd, size_t size)
{
    if (!page_size) {
        long ps = sysconf(_SC_PAGESIZE);
        if (ps <= 0)
            return NULL;
        page_size = (size_t)ps;
    }
    if (size < MAPFILE_MIN_SIZE || size > SIZE_MAX - 2 * page_size || !install_handler())
        return NULL;
    int slot = 0;
    while (slot < MAX_MAPS && maps[slot].start)
        slot++;
    if (slot == MAX_MAPS)
        return NULL;
    /* Zero pages for the whole length first, then the file over them: the guard byte is the
       zero tail of the file's last page, or a zero page of its own when the file ends on a
       page boundary. */
    size_t total = round_up(size + 1, page_size);
    char *base = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (mmap(base, round_up(size, page_size), PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE,
             fd, 0) == MAP_FAILED) {
        munmap(base, total);
        return NULL;
    }
    maps[slot].len = total;
    maps[slot].start = base;
    return base;
}

bool mapfile_writable(char *p, size_t size)
{
    return p && page_size && mprotect(p, round_up(size + 1, page_size), PROT_READ | PROT_WRITE) == 0;
}

void mapfile_close(char *p, size_t size)
{
    if (!p)
        return;
    size_t total = round_up(size + 1, page_size);
    for (int i = 0; i < MAX_MAPS; i++)
        if (maps[i].start == p) {
            maps[i].start = NULL;
            maps[i].len = 0;
        }
    munmap(p, total);
}
