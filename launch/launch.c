/* SPDX-License-Identifier: MIT */
/*
 * launch/launch.c: helpers for the control stream that mpirun and
 * michi-proxy share (see launch.h).
 */
#include "config.h"
#include "launch.h"

#include <stdlib.h>
#include <string.h>

michi_status_t launch_ctl_send(int fd, struct pmi_wire_out *o)
{
	michi_status_t st = pmi_wire_end(o);

	if (st < 0)
		return st;
	return pmi_wire_write_all(fd, o->buf, o->len);
}

void launch_add_text(struct pmi_wire_out *o, const char *key, const char *text)
{
	size_t len = strlen(text), cap = 3 * len + 1;
	char *esc = malloc(cap);

	if (!esc) {
		if (o->st == MICHI_OK)
			o->st = michi_err(MICHI_ERR_NOMEM, "launch: no memory to encode '%s'", key);
		return;
	}
	pmi_wire_escape(esc, cap, text, len);
	pmi_wire_add(o, key, esc);
	free(esc);
}

const char *launch_signame(int sig)
{
	const char *s = strsignal(sig);

	return s ? s : "unknown signal";
}
