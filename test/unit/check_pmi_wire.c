/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_pmi_wire.c: unit tests of util/pmi_wire.c, the PMI-1
 * line parser, formatter, escaping and incremental reader. The malformed
 * inputs are the ones a broken or hostile peer can send: no '=', no cmd,
 * NUL bytes, duplicate keys, overlong lines, lines split across reads.
 */
#include "config.h"
#include "pmi_wire.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static michi_status_t parse_str(struct pmi_wire_msg *m, char *buf, const char *s)
{
	strcpy(buf, s);
	michi_err_clear();
	return pmi_wire_parse(m, buf, strlen(buf), PMI_WIRE_LINE_MAX);
}

START_TEST(test_parse_put)
{
	char buf[256];
	struct pmi_wire_msg m;
	int v;

	ck_assert_int_eq(parse_str(&m, buf, "cmd=put kvsname=k key=a value=b\n"), MICHI_OK);
	ck_assert_int_eq(m.npairs, 4);
	ck_assert_str_eq(pmi_wire_cmd(&m), "put");
	ck_assert_str_eq(pmi_wire_get(&m, "kvsname"), "k");
	ck_assert_str_eq(pmi_wire_get(&m, "key"), "a");
	ck_assert_str_eq(pmi_wire_get(&m, "value"), "b");
	ck_assert_ptr_null(pmi_wire_get(&m, "nope"));

	ck_assert_int_eq(parse_str(&m, buf, "cmd=set  size=4   rank=3"), MICHI_OK);
	ck_assert_int_eq(pmi_wire_get_int(&m, "size", &v), MICHI_OK);
	ck_assert_int_eq(v, 4);
	ck_assert_int_eq(pmi_wire_get_int(&m, "rank", &v), MICHI_OK);
	ck_assert_int_eq(v, 3);
	ck_assert_int_eq(pmi_wire_get_int(&m, "debug", &v), MICHI_ERR_PMI);
}
END_TEST

START_TEST(test_parse_empty_and_eq_values)
{
	char buf[256];
	struct pmi_wire_msg m;
	int v = 7;

	ck_assert_int_eq(parse_str(&m, buf, "cmd=get_result rc=0 value= msg=success\r\n"), MICHI_OK);
	ck_assert_str_eq(pmi_wire_get(&m, "value"), "");
	ck_assert_str_eq(pmi_wire_get(&m, "msg"), "success");
	/* a value may itself contain '=' (the first '=' splits) */
	ck_assert_int_eq(parse_str(&m, buf, "cmd=put key=x value=a=b=c"), MICHI_OK);
	ck_assert_str_eq(pmi_wire_get(&m, "value"), "a=b=c");
	ck_assert_int_eq(parse_str(&m, buf, "cmd=appnum appnum=12x"), MICHI_OK);
	ck_assert_int_eq(pmi_wire_get_int(&m, "appnum", &v), MICHI_ERR_PMI);
	ck_assert_int_eq(v, 7);
}
END_TEST

START_TEST(test_parse_malformed)
{
	char buf[256];
	struct pmi_wire_msg m;

	m.npairs = -42;
	ck_assert_int_eq(parse_str(&m, buf, "cmd=put key"), MICHI_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(michi_err_msg(), "no '='"));
	ck_assert_int_eq(m.npairs, -42);   /* untouched on error */
	ck_assert_int_eq(parse_str(&m, buf, "key=a value=b"), MICHI_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(michi_err_msg(), "cmd="));
	ck_assert_int_eq(parse_str(&m, buf, "cmd=put =b"), MICHI_ERR_INVAL);
	ck_assert_int_eq(parse_str(&m, buf, "cmd=put key=a key=b"), MICHI_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(michi_err_msg(), "duplicate"));
	ck_assert_int_eq(parse_str(&m, buf, ""), MICHI_ERR_INVAL);
	ck_assert_int_eq(parse_str(&m, buf, "   \n"), MICHI_ERR_INVAL);
	ck_assert_int_eq(parse_str(&m, buf, "cmd= a=b"), MICHI_ERR_INVAL);
	ck_assert_int_eq(parse_str(&m, buf, "mcmd=spawn\n"), MICHI_ERR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(michi_err_msg(), "spawn"));
	ck_assert_int_eq(m.npairs, -42);
}
END_TEST

START_TEST(test_parse_nul_and_limits)
{
	char buf[PMI_WIRE_LINE_MAX * 2];
	struct pmi_wire_msg m;
	size_t i;

	memcpy(buf, "cmd=put key=a\0b value=c", 23);
	michi_err_clear();
	ck_assert_int_eq(pmi_wire_parse(&m, buf, 23, PMI_WIRE_LINE_MAX), MICHI_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(michi_err_msg(), "NUL"));

	/* exactly at the limit (with '\n') passes, one more byte fails */
	strcpy(buf, "cmd=x v=");
	for (i = strlen(buf); i < PMI_WIRE_LINE_MAX - 1; i++)
		buf[i] = 'a';
	buf[i] = '\0';
	ck_assert_int_eq(pmi_wire_parse(&m, buf, strlen(buf), PMI_WIRE_LINE_MAX), MICHI_OK);
	for (i = strlen("cmd=x v="); i < PMI_WIRE_LINE_MAX; i++)
		buf[i] = 'a';
	buf[i] = '\0';
	ck_assert_int_eq(pmi_wire_parse(&m, buf, strlen(buf), PMI_WIRE_LINE_MAX), MICHI_ERR_INVAL);

	/* too many pairs */
	strcpy(buf, "cmd=x");
	for (i = 0; i < PMI_WIRE_PAIRS_MAX; i++)
		sprintf(buf + strlen(buf), " k%zu=v", i);
	ck_assert_int_eq(pmi_wire_parse(&m, buf, strlen(buf), PMI_WIRE_LINE_MAX), MICHI_ERR_INVAL);
}
END_TEST

START_TEST(test_format)
{
	char buf[64], small[20];
	struct pmi_wire_out o;
	struct pmi_wire_msg m;

	pmi_wire_begin(&o, buf, sizeof(buf), "put");
	pmi_wire_add(&o, "kvsname", "kvs_1");
	pmi_wire_add(&o, "key", "a");
	pmi_wire_add(&o, "value", "");
	pmi_wire_add_int(&o, "n", -5);
	ck_assert_int_eq(pmi_wire_end(&o), MICHI_OK);
	ck_assert_str_eq(buf, "cmd=put kvsname=kvs_1 key=a value= n=-5\n");
	ck_assert_uint_eq(o.len, strlen(buf));
	ck_assert_int_eq(pmi_wire_parse(&m, buf, o.len, sizeof(buf)), MICHI_OK);
	ck_assert_str_eq(pmi_wire_get(&m, "value"), "");

	pmi_wire_begin(&o, buf, sizeof(buf), "put");
	pmi_wire_add(&o, "value", "has space");
	pmi_wire_add(&o, "key", "fine");
	ck_assert_int_eq(pmi_wire_end(&o), MICHI_ERR_INVAL);
	pmi_wire_begin(&o, buf, sizeof(buf), "put");
	pmi_wire_add(&o, "k=y", "v");
	ck_assert_int_eq(pmi_wire_end(&o), MICHI_ERR_INVAL);
	pmi_wire_begin(&o, buf, sizeof(buf), "put");
	pmi_wire_add(&o, "value", "new\nline");
	ck_assert_int_eq(pmi_wire_end(&o), MICHI_ERR_INVAL);

	/* never writes past cap */
	memset(small, 'Z', sizeof(small));
	pmi_wire_begin(&o, small, 16, "put");
	pmi_wire_add(&o, "value", "0123456789");
	ck_assert_int_eq(pmi_wire_end(&o), MICHI_ERR_INVAL);
	ck_assert_int_eq(small[16], 'Z');
	pmi_wire_begin(&o, small, 16, "abcdefghijklmn");   /* 4 + 14 + 2 > 16 */
	ck_assert_int_eq(pmi_wire_end(&o), MICHI_ERR_INVAL);
	ck_assert_int_eq(small[16], 'Z');
}
END_TEST

START_TEST(test_escape)
{
	char enc[64], tiny[4];
	const char *src = "a b=c%d\n\x01z";

	ck_assert_int_eq(pmi_wire_escape(enc, sizeof(enc), src, strlen(src)), 20);
	ck_assert_str_eq(enc, "a%20b%3dc%25d%0a%01z");
	ck_assert_ptr_null(strpbrk(enc, " =\n"));
	ck_assert_uint_eq(pmi_wire_unescape(enc), strlen(src));
	ck_assert_str_eq(enc, src);
	ck_assert_int_eq(pmi_wire_escape(tiny, sizeof(tiny), " ", 1), 3);
	ck_assert_int_eq(pmi_wire_escape(tiny, sizeof(tiny), "  ", 2), -1);
	strcpy(enc, "50%-off %zz %4");
	pmi_wire_unescape(enc);
	ck_assert_str_eq(enc, "50%-off %zz %4");
}
END_TEST

static void pipe_write(int fd, const char *s)
{
	ck_assert_int_eq(pmi_wire_write_all(fd, s, strlen(s)), MICHI_OK);
}

START_TEST(test_reader_partial)
{
	struct pmi_wire_reader r;
	struct pmi_wire_msg m;
	int p[2];

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(pmi_wire_reader_init(&r, 64), MICHI_OK);
	ck_assert_int_eq(pmi_wire_reader_fill(&r, p[0]), MICHI_INPROGRESS);
	pipe_write(p[1], "cmd=barr");
	ck_assert_int_eq(pmi_wire_reader_fill(&r, p[0]), MICHI_OK);
	ck_assert_int_eq(pmi_wire_reader_next(&r, &m), MICHI_INPROGRESS);
	pipe_write(p[1], "ier_in\ncmd=get key=a\ncmd=fin");
	ck_assert_int_eq(pmi_wire_reader_fill(&r, p[0]), MICHI_OK);
	ck_assert_int_eq(pmi_wire_reader_next(&r, &m), MICHI_OK);
	ck_assert_str_eq(pmi_wire_cmd(&m), "barrier_in");
	ck_assert_int_eq(pmi_wire_reader_next(&r, &m), MICHI_OK);
	ck_assert_str_eq(pmi_wire_get(&m, "key"), "a");
	ck_assert_int_eq(pmi_wire_reader_next(&r, &m), MICHI_INPROGRESS);
	pipe_write(p[1], "alize\n");
	ck_assert_int_eq(pmi_wire_reader_fill(&r, p[0]), MICHI_OK);
	ck_assert_int_eq(pmi_wire_reader_next(&r, &m), MICHI_OK);
	ck_assert_str_eq(pmi_wire_cmd(&m), "finalize");
	close(p[1]);
	ck_assert_int_eq(pmi_wire_reader_fill(&r, p[0]), MICHI_ERR_PEER);
	pmi_wire_reader_destroy(&r);
	close(p[0]);
}
END_TEST

START_TEST(test_reader_overlong_and_bad)
{
	struct pmi_wire_reader r;
	struct pmi_wire_msg m;
	char big[200];
	int p[2], i;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(pmi_wire_reader_init(&r, 32), MICHI_OK);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pipe_write(p[1], "cmd=");
	pipe_write(p[1], big);
	pipe_write(p[1], "\nnot a line\ncmd=ok\n");
	michi_err_clear();
	/* the overlong line is reported once, then the bad one, then ok */
	int errors = 0, oks = 0;
	for (i = 0; i < 50 && oks == 0; i++) {
		michi_status_t st = pmi_wire_reader_fill(&r, p[0]);

		ck_assert(st == MICHI_OK || st == MICHI_INPROGRESS);
		for (;;) {
			st = pmi_wire_reader_next(&r, &m);
			if (st == MICHI_INPROGRESS)
				break;
			if (st < 0) {
				errors++;
				continue;
			}
			ck_assert_str_eq(pmi_wire_cmd(&m), "ok");
			oks++;
		}
	}
	ck_assert_int_eq(errors, 2);
	ck_assert_int_eq(oks, 1);
	pmi_wire_reader_destroy(&r);
	close(p[0]);
	close(p[1]);
}
END_TEST

static Suite *pmi_wire_suite(void)
{
	Suite *s = suite_create("pmi_wire");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_put);
	tcase_add_test(tc, test_parse_empty_and_eq_values);
	tcase_add_test(tc, test_parse_malformed);
	tcase_add_test(tc, test_parse_nul_and_limits);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_reader_partial);
	tcase_add_test(tc, test_reader_overlong_and_bad);
	tcase_set_timeout(tc, 20);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pmi_wire_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
