/*
 * Copyright (c) 2026 The OVS PFC authors.
 * Licensed under the Apache License, Version 2.0.
 *
 * pfc-freeze-probe: finds the times that a CPU did not run the probe, for the
 * PFC benchmark (utilities/ovs-pfc-bench), which compiles and runs it.
 *
 * Usage: pfc-freeze-probe --cpu N [--seconds S] [--log FILE]
 *
 * Pins itself to CPU N and reads the time stamp counter (TSC) in a tight
 * loop, well under 0.1 us apart, until S seconds have passed (default: until
 * SIGTERM or SIGINT).  Each gap of PROBE_GAP_NS or more between two reads is
 * a stretch of time the probe did not run.  If the kernel switched the probe
 * out meanwhile (its context switch count moved), the gap is the guest's
 * doing and is "blind": the probe cannot tell what else happened then.
 * Otherwise nothing in the guest ran on that CPU, so the whole virtual
 * machine was stopped -- by the hypervisor, or by an interrupt the guest
 * handled -- a "freeze".
 *
 * On a nested virtual machine such as the reference one, freezes of about 10
 * us come about 1,300 times a second, on every vCPU at once (97% of them
 * overlap on the two vCPUs), and the guest's steal time does not show them.
 * A PMD thread cannot do anything during one.  The benchmark runs the probe
 * on the PMD's CPU before ovs-vswitchd starts, for late_2us_share: how often
 * an ideal timer on that CPU would miss a deadline by more than 2 us, the
 * control of its timer-error figure.  Run on another CPU with --log while
 * the PMD thread works, the log can be set against the start times that
 * "ovs-appctl pfc/samples" prints (same clock); the benchmark does not do
 * that, because on a 2-vCPU machine the busy loop slows the PMD thread.
 *
 * With --log it writes one line per freeze, "START END" in TSC cycles, and
 * one per blind gap, "START END blind", to FILE.  At the end it prints one
 * line of JSON: cpu, seconds, tsc_hz, per_s_2us and per_s_5us (freezes a
 * second of at least 2 and 5 us), median_ns (of freezes, to within
 * PROBE_BUCKET_NS), lost_share (of
 * time in freezes), late_2us_share (of time that a deadline falling in it
 * would be missed by more than 2 us: time in freezes, less their last 2 us),
 * blind_share (of time in blind gaps).
 *
 * x86 only: it reads the TSC with rdtsc, the clock that DPDK's
 * rte_get_tsc_cycles() reads, so that its times and pfc/samples' agree.
 */

#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#if !defined(__x86_64__) && !defined(__i386__)
#error "pfc-freeze-probe reads the x86 TSC"
#endif
#include <x86intrin.h>

/* A gap of this many ns or more between two reads of the TSC is a stretch
 * of time the probe did not run; the normal gap is under 0.1 us. */
#define PROBE_GAP_NS 2000

/* Freeze lengths are counted in buckets of this many ns, up to PROBE_BUCKETS
 * buckets (longer ones go in the last), for their median. */
#define PROBE_BUCKET_NS 100
#define PROBE_BUCKETS 10000
static uint64_t hist[PROBE_BUCKETS];

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
    (void) sig;
    stop = 1;
}

static uint64_t
mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Reads the TSC and CLOCK_MONOTONIC_RAW at about the same instant into
 * '*tsc' and '*ns': the clock read between two TSC reads less than 2 us
 * apart at 3 GHz (6,000 cycles), so that a freeze of the CPU between the
 * two reads cannot skew the TSC's rate measured from such pairs.  Tries
 * 100 times, then takes the last pair. */
static void
clock_pair(uint64_t *tsc, uint64_t *ns)
{
    for (int i = 0; i < 100; i++) {
        uint64_t a = __rdtsc();

        *ns = mono_ns();

        uint64_t b = __rdtsc();

        *tsc = a + (b - a) / 2;
        if (b - a < 6000) {
            break;
        }
    }
}

/* Context switches of the calling thread so far. */
static long
switches(void)
{
    struct rusage ru;

    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Prints 'what' and the error in errno to stderr, and returns 1. */
static int
fail(const char *what)
{
    fprintf(stderr, "pfc-freeze-probe: ");
    perror(what);
    return 1;
}

static void
usage(void)
{
    fprintf(stderr, "usage: pfc-freeze-probe --cpu N [--seconds S] "
            "[--log FILE]\n");
    exit(2);
}

/* What the probe found. */
struct probe {
    double hz;                  /* TSC cycles a second. */
    double secs;                /* Time probed. */
    uint64_t n, n5;             /* Freezes of at least 2 us, and 5 us. */
    uint64_t lost, late, blind; /* TSC cycles: in freezes, late by more than
                                 * 2 us, in blind gaps. */
};

/* Reads the options into '*cpu', '*seconds' and '*log_name', or exits with
 * the usage. */
static void
parse_options(int argc, char *argv[], int *cpu, double *seconds,
              const char **log_name)
{
    static const struct option opts[] = {
        { "cpu", required_argument, NULL, 'c' },
        { "seconds", required_argument, NULL, 's' },
        { "log", required_argument, NULL, 'l' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;

        switch (c) {
        case 'c':
            *cpu = strtol(optarg, &end, 10);
            if (*end || *cpu < 0 || *cpu >= CPU_SETSIZE) {
                usage();
            }
            break;
        case 's':
            *seconds = strtod(optarg, &end);
            if (*end || *seconds <= 0) {
                usage();
            }
            break;
        case 'l':
            *log_name = optarg;
            break;
        default:
            usage();
        }
    }
    if (*cpu < 0 || optind != argc) {
        usage();
    }
}

/* Reads the TSC in a tight loop for 'seconds' (0: until a signal), into
 * '*p' and hist[], with a line per gap in 'log' if it is nonnull. */
static void
probe_run(double seconds, FILE *log, struct probe *p)
{
    /* The TSC's rate, from 50 ms against CLOCK_MONOTONIC_RAW, refined over
     * the whole run at the end. */
    uint64_t ns0, tsc0, ns, tsc;

    clock_pair(&tsc0, &ns0);
    do {
        clock_pair(&tsc, &ns);
    } while (ns - ns0 < 50000000);
    double hz = (tsc - tsc0) * 1e9 / (ns - ns0);
    uint64_t gap = hz * PROBE_GAP_NS / 1e9;

    uint64_t n = 0, lost = 0, late = 0, blind = 0, n5 = 0;
    uint64_t five = hz * 5000 / 1e9;
    uint64_t start = __rdtsc();
    uint64_t end = seconds ? start + (uint64_t) (seconds * hz) : UINT64_MAX;
    long sw = switches();
    uint64_t prev = __rdtsc();

    while (!stop && prev < end) {
        uint64_t now = __rdtsc();

        if (now - prev >= gap) {
            long sw2 = switches();

            if (sw2 != sw) {
                blind += now - prev;
                if (log) {
                    fprintf(log, "%"PRIu64" %"PRIu64" blind\n", prev, now);
                }
                sw = sw2;
            } else {
                uint64_t len = now - prev;
                uint64_t b = len * 1e9 / hz / PROBE_BUCKET_NS;

                hist[b < PROBE_BUCKETS ? b : PROBE_BUCKETS - 1]++;
                n++;
                lost += len;
                /* A deadline in the gap's first len - 2 us is late by more
                 * than 2 us ('gap' is 2 us). */
                late += len - gap;
                n5 += len >= five;
                if (log) {
                    fprintf(log, "%"PRIu64" %"PRIu64"\n", prev, now);
                }
            }
            /* The getrusage() call is not part of any gap. */
            now = __rdtsc();
        }
        prev = now;
    }
    uint64_t ns1, tsc1;

    clock_pair(&tsc1, &ns1);
    p->hz = (tsc1 - tsc0) * 1e9 / (ns1 - ns0);
    p->secs = (prev - start) / p->hz;
    p->n = n;
    p->n5 = n5;
    p->lost = lost;
    p->late = late;
    p->blind = blind;
}

/* Prints the line of JSON of '*p', probed on CPU 'cpu'. */
static void
probe_print(int cpu, const struct probe *p)
{
    double median_ns = 0;
    uint64_t below = 0;

    for (int b = 0; p->n && b < PROBE_BUCKETS; b++) {
        below += hist[b];
        if (below * 2 > p->n) {
            median_ns = (b + 0.5) * PROBE_BUCKET_NS;
            break;
        }
    }
    printf("{\"cpu\": %d, \"seconds\": %.3f, \"tsc_hz\": %.0f, "
           "\"per_s_2us\": %.1f, \"per_s_5us\": %.1f, \"median_ns\": %.0f, "
           "\"lost_share\": %.6f, \"late_2us_share\": %.6f, "
           "\"blind_share\": %.6f}\n",
           cpu, p->secs, p->hz, p->n / p->secs, p->n5 / p->secs, median_ns,
           p->lost / p->hz / p->secs, p->late / p->hz / p->secs,
           p->blind / p->hz / p->secs);
}

int
main(int argc, char *argv[])
{
    const char *log_name = NULL;
    double seconds = 0;
    struct probe p;
    int cpu = -1;

    parse_options(argc, argv, &cpu, &seconds, &log_name);

    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set)) {
        return fail("sched_setaffinity (--cpu)");
    }
    FILE *log = NULL;
    if (log_name) {
        log = fopen(log_name, "w");
        if (!log) {
            return fail(log_name);
        }
        setvbuf(log, NULL, _IOFBF, 1 << 20);
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    probe_run(seconds, log, &p);
    if (log && fclose(log)) {
        return fail(log_name);
    }
    probe_print(cpu, &p);
    return 0;
}
