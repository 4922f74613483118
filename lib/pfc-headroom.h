/*
 * Copyright (c) 2026 The OVS PFC authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#ifndef PFC_HEADROOM_H
#define PFC_HEADROOM_H 1

/* PFC headroom: how much a port must still be able to absorb after it
 * decides to send XOFF.
 *
 * After a receiver R decides to pause priority n of its link partner S, data
 * of priority n keeps arriving until the PFC frame has crossed the link, S
 * has reacted and the last bits that S sent have crossed back.  R must send
 * XOFF while it can still store all of that: the "headroom".  This module
 * computes the headroom from link physics, as a sum of terms in bit times,
 * and converts it into bytes, pause quanta and buffer units.  It is pure
 * arithmetic: no DPDK, no clock, integers only, so every published worked
 * example is reproduced to the bit (tests/test-pfc-headroom.c).
 *
 * All models share one formula, in bit times at the link speed:
 *
 *     headroom = frame(MTU[R]) + frame(PFC)         R finishes a frame, then
 *                                                    sends the PFC frame
 *              + cable(R -> S)                       PFC frame on the wire
 *              + id_count * interface_delay          PHY/MAC delays
 *              + higher_layer_delay                  S's queues and MACsec
 *              + response                            S's reaction time
 *              + frame(MTU[S])                       S finishes its frame
 *              + cable(S -> R)                       data still in flight
 *
 * where frame(x) = 8 * (x + frame_overhead) for x > 0 (0 for x = 0), and each
 * cable term is the one-way propagation delay rounded up to a whole bit time,
 * or, with the Cisco rule of thumb, both cable terms together are
 * cable_rule bytes per 100 m at 10 Gb/s, scaled to the link speed.
 *
 * A model is nothing but a set of default inputs (pfc_headroom_input_init())
 * with which the formula gives its seed's worked example exactly:
 *
 *   - PFC_HEADROOM_ANNEX_A, "annex-a": seed 000, Annex A.  2000-octet
 *     frames, a 64-octet PFC frame, 100 m at 0.66 c at 10 Gb/s (5051 bit
 *     times each way), the 14,336 bit-time response of seed 000 4.6 plus one
 *     10GBASE-T PHY delay (25,600).  Total 82,550 bit times.
 *
 *   - PFC_HEADROOM_DELAY_VALUE, "delay-value": seed 001, HP "PFC Delay
 *     Value Constraint Model", DV = 2 * max_frame + PFC_frame + 2 *
 *     cable_delay + 2 * ID + HD.  2000-octet frames and the PFC frame counted
 *     with their 20 octets of preamble, SFD and inter-packet gap (16,160 and
 *     672 bit times), 100 m of Cat 6 at 0.60 c (5556 each way), ID = 37,888
 *     (10G MAC, 2 x XAUI, 10GBASE-T) per station, HD = 33,184 (MACsec SecY
 *     transmit 17,024 + one frame of pipelining 16,160).  Total 153,064 bit
 *     times.
 *
 *   - PFC_HEADROOM_CISCO, "cisco": seed 003, Cisco "Priority Flow Control:
 *     Build Reliable Layer 2 Infrastructure": MTU[R] + MTU[S] + 3,840 bytes
 *     (a response of 60 quanta) + 1,300 bytes per 100 m, quantised into
 *     160-byte cells with 64-byte packets as the worst case.  300 m, MTU[S]
 *     2240, MTU[R] 9216: 19,196 bytes, 300 cells, 48,000 bytes.
 *
 * "MTU" here is the seeds' sense: the largest frame in bytes, from the
 * destination address to the FCS inclusive (9216 for jumbo frames).
 *
 * pfc_headroom_run() is the whole calculator, key=value arguments in, text
 * out: both "ovs-appctl pfc/headroom" and the ovs-pfc-headroom program
 * (utilities/ovs-pfc-headroom.c, which needs no daemon) are thin wrappers
 * around it.
 *
 * The caller serializes access to each object; nothing here keeps state
 * between calls except the registration of the unixctl command. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pfc-config.h"

struct ds;

/* A named set of default inputs: see the comment at the top of this file. */
enum pfc_headroom_model {
    PFC_HEADROOM_ANNEX_A,       /* "annex-a", seed 000 Annex A. */
    PFC_HEADROOM_DELAY_VALUE,   /* "delay-value", seed 001. */
    PFC_HEADROOM_CISCO,         /* "cisco", seed 003. */
};

/* How the receiver stores the headroom's bytes (seed 003, "Buffers and
 * Packets"): the receiver's buffer unit and how packets fill it. */
enum pfc_headroom_granularity {
    PFC_HEADROOM_BYTE,  /* "byte": contiguous bytes.  One unit per byte;
                         * the seeds 000 and 001 count this way. */
    PFC_HEADROOM_CELL,  /* "cell": a packet of L bytes takes
                         * ceil(L / cell_size) cells that no other packet
                         * shares (Nexus 5000 UPC, 160-byte cells). */
    PFC_HEADROOM_MBUF,  /* "mbuf": a packet takes one buffer of cell_size
                         * bytes whatever its size, as a packet takes one
                         * mbuf in this switch. */
};

/* Ranges of the inputs, as accepted by pfc_headroom_parse() and
 * pfc_headroom_compute().  The link speed range is PFC_LINK_SPEED_MIN to
 * PFC_LINK_SPEED_MAX of lib/pfc.h (1 Mb/s to 1 Tb/s). */
#define PFC_HEADROOM_SPEED_MIN 1000000ULL           /* bit/s. */
#define PFC_HEADROOM_SPEED_MAX 1000000000000ULL     /* bit/s. */
#define PFC_HEADROOM_CABLE_MAX 100000               /* Metres (100 km). */
#define PFC_HEADROOM_VELOCITY_MIN 1000              /* 0.1 c, in 1/10000 c. */
#define PFC_HEADROOM_VELOCITY_MAX 10000             /* 1.0 c. */
#define PFC_HEADROOM_CABLE_RULE_MAX 100000          /* Bytes per 100 m. */
#define PFC_HEADROOM_MTU_MIN 64                     /* Bytes. */
#define PFC_HEADROOM_MTU_MAX 65535                  /* Bytes. */
#define PFC_HEADROOM_OVERHEAD_MAX 255               /* Bytes per frame. */
#define PFC_HEADROOM_PFC_FRAME_MAX 65535            /* Bytes. */
#define PFC_HEADROOM_DELAY_MAX UINT32_MAX           /* Bit times. */
#define PFC_HEADROOM_ID_COUNT_MAX 2                 /* Stations. */
#define PFC_HEADROOM_QUANTA_MAX 65535               /* Pause quanta. */
#define PFC_HEADROOM_CELL_MAX 65535                 /* Bytes. */
#define PFC_HEADROOM_MIN_FRAME_MAX 65535            /* Bytes. */

/* Speed of light in vacuum that the seeds use, in m/s (seed 000 Annex A,
 * seed 001 5: 3 x 10^8). */
#define PFC_HEADROOM_C 300000000ULL

/* Longest 'phy' description kept in 'struct pfc_headroom_input'. */
#define PFC_HEADROOM_PHY_LEN 64

/* Inputs of the calculator.  pfc_headroom_input_init() fills in a model's
 * defaults; callers then override what they know. */
struct pfc_headroom_input {
    enum pfc_headroom_model model;  /* Whose defaults these started from;
                                     * only shown in the output. */
    uint64_t speed;             /* Link speed, bit/s, PFC_HEADROOM_SPEED_MIN
                                 * to PFC_HEADROOM_SPEED_MAX. */
    uint32_t cable_length;      /* Cable length, metres, 0 to
                                 * PFC_HEADROOM_CABLE_MAX. */
    uint32_t velocity;          /* Signal velocity in the cable, in
                                 * 1/10000 of c: 6600 is 0.66 c.
                                 * PFC_HEADROOM_VELOCITY_MIN to _MAX.  Used
                                 * only when cable_rule is 0. */
    uint32_t cable_rule;        /* Cisco rule of thumb (seed 003): both cable
                                 * terms together are this many bytes per
                                 * 100 m at 10 Gb/s, scaled linearly with
                                 * the speed, rounded up to a bit time.
                                 * 0 to PFC_HEADROOM_CABLE_RULE_MAX; 0 to
                                 * compute each direction from 'velocity'
                                 * instead. */
    uint32_t class_mtu;         /* MTU[S]: largest frame of the paused
                                 * priority, bytes, PFC_HEADROOM_MTU_MIN to
                                 * PFC_HEADROOM_MTU_MAX. */
    uint32_t port_mtu;          /* MTU[R]: largest frame of any priority
                                 * that the port sending XOFF may have
                                 * begun to send, bytes, same range. */
    uint32_t frame_overhead;    /* Bytes added to each frame on the wire
                                 * (preamble and SFD 8, inter-packet gap
                                 * 12): 20 in seed 001, 0 in seeds 000 and
                                 * 003.  0 to PFC_HEADROOM_OVERHEAD_MAX. */
    uint32_t pfc_frame;         /* PFC frame, bytes: 64 (802.3 Annex 31D),
                                 * or 0 to leave it out as seed 003 does.
                                 * 0 to PFC_HEADROOM_PFC_FRAME_MAX. */
    uint32_t interface_delay;   /* ID: delay of one station's MAC Control,
                                 * MAC/RS, XGXS, PCS, PMA and PMD, transmit
                                 * plus receive, bit times (seed 001 table
                                 * 1; pfc_headroom_phy_delay()). */
    char phy[PFC_HEADROOM_PHY_LEN]; /* Where interface_delay came from, for
                                     * the output: a phy description such as
                                     * "mac+xaui+xaui+10gbase-t", or "" for a
                                     * number given directly. */
    uint32_t id_count;          /* How many stations' ID are counted, 0 to
                                 * 2: annex-a counts the responder's PHY
                                 * only (1), delay-value both (2). */
    uint32_t higher_layer_delay; /* HD: bit times between the MAC Control
                                  * client and the sender's transmission
                                  * selection (seed 001 6). */
    uint32_t response;          /* The partner's response time, bit times:
                                 * 14,336 (seed 000 4.6) or 60 quanta =
                                 * 30,720 (seed 003). */
    enum pfc_headroom_granularity granularity;  /* Receiver's buffers. */
    uint32_t cell_size;         /* Bytes per buffer unit, 1 to
                                 * PFC_HEADROOM_CELL_MAX (1 for
                                 * PFC_HEADROOM_BYTE). */
    uint32_t min_frame;         /* Smallest frame the sender may send,
                                 * bytes, 1 to PFC_HEADROOM_MIN_FRAME_MAX:
                                 * the worst case of PFC_HEADROOM_MBUF, and
                                 * the lower end of the worst-case search
                                 * of PFC_HEADROOM_CELL. */
};

/* One term of the sum, in the order of the formula above. */
struct pfc_headroom_term {
    const char *name;           /* What it is, a static string. */
    char detail[96];            /* How it was computed, e.g. "2000 bytes" or
                                 * "100 m at 0.66 c". */
    uint64_t bits;              /* Bit times. */
};

#define PFC_HEADROOM_MAX_TERMS 8

/* Output of pfc_headroom_compute(). */
struct pfc_headroom_result {
    struct pfc_headroom_term terms[PFC_HEADROOM_MAX_TERMS]; /* Non-zero
                                                             * terms. */
    size_t n_terms;             /* Number of terms[], 0 to
                                 * PFC_HEADROOM_MAX_TERMS. */
    uint64_t bits;              /* Sum of the terms, bit times. */
    uint64_t bytes;             /* ceil(bits / 8). */
    uint64_t quanta;            /* ceil(bits / 512): pause quanta. */
    uint64_t cells;             /* Buffer units needed to store 'bytes' in
                                 * the worst case (pfc_headroom_cells()). */
    uint32_t cell_size;         /* Bytes per buffer unit (the input's). */
    uint64_t cell_bytes;        /* cells * cell_size. */
    uint32_t worst_frame;       /* Frame size, bytes, that needs the most
                                 * units; 0 for PFC_HEADROOM_BYTE. */
};

void pfc_headroom_input_init(struct pfc_headroom_input *,
                             enum pfc_headroom_model);
const char *pfc_headroom_model_name(enum pfc_headroom_model);
bool pfc_headroom_model_from_string(const char *,
                                    enum pfc_headroom_model *);
int pfc_headroom_velocity_from_string(const char *, uint32_t *velocity);
int pfc_headroom_phy_delay(const char *phy, uint32_t *bits);
uint64_t pfc_headroom_cells(uint64_t bytes, enum pfc_headroom_granularity,
                            uint32_t cell_size, uint32_t min_frame,
                            uint32_t max_frame, uint32_t *worst_frame);
int pfc_headroom_compute(const struct pfc_headroom_input *,
                         struct pfc_headroom_result *);
int pfc_headroom_parse(int argc, const char *const argv[],
                       struct pfc_headroom_input *, char **errp);
void pfc_headroom_format(struct ds *, const struct pfc_headroom_input *,
                         const struct pfc_headroom_result *);
char *pfc_headroom_run(int argc, const char *const argv[], struct ds *);
void pfc_headroom_register_commands(void);

#endif /* pfc-headroom.h */
