/*
 * redact.h: secrets hidden from reports.  A report is pasted into tickets
 * and postmortems that more people read than the logs' readers, and logs
 * print tokens (HF_TOKEN=..., Authorization: headers, URLs with a password)
 * that must not travel with it.
 */
#ifndef RL_REDACT_H
#define RL_REDACT_H

#include "base.h"

#define REDACT_MARK	"[REDACTED]"

size_t	 redact(struct buf *, const char *, size_t);

#endif
