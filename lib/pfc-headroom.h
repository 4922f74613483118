/* Placeholder: the headroom calculator (issue 3) is being written. */
#ifndef PFC_HEADROOM_H
#define PFC_HEADROOM_H 1
#endif /* pfc-headroom.h */
