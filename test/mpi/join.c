/* SPDX-License-Identifier: MIT */
/*
 * MPI_Comm_join over a loopback TCP connection the program makes itself:
 * ranks pair up (0-1, 2-3, ...), the even one listens on 127.0.0.1 and
 * sends its port number by message, the odd one connects, and both join
 * over their socket. The intercommunicator has one process on each side;
 * messages go both ways, a merge orders the two alike on both sides, and
 * MPI_Comm_disconnect ends it. A descriptor that is not a socket fails
 * with MPI_ERR_ARG.
 */
#include "mtest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	MPI_Comm inter, merged;
	int partner, fd = -1, lfd, port = 0, v, rsize = 0, err, cls, mrank = -1, other = -1;

	mtest_init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	err = MPI_Comm_join(-1, &inter);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_ARG, "join on fd -1: class %d", cls);
	partner = mtest_rank ^ 1;
	if (partner >= mtest_size)
		return mtest_finalize();
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (mtest_rank % 2 == 0) {
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		    listen(lfd, 1) != 0 || getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0) {
			printf("rank %d: cannot listen on loopback\n", mtest_rank);
			MPI_Abort(MPI_COMM_WORLD, 77);
		}
		port = ntohs(sa.sin_port);
		MPI_Send(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);
		/* accept() makes no MPI progress: the send must have arrived
		 * (over tcp it may still wait in our queue) */
		MPI_Recv(&v, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		fd = accept(lfd, NULL, NULL);
		close(lfd);
	} else {
		MPI_Recv(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&port, 1, MPI_INT, partner, 2, MPI_COMM_WORLD);
		sa.sin_port = htons((uint16_t)port);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			close(fd);
			fd = -1;
		}
	}
	if (!mtest_check(fd >= 0, "no socket to rank %d", partner))
		return mtest_finalize();
	err = MPI_Comm_join(fd, &inter);
	close(fd);
	if (!mtest_check(err == MPI_SUCCESS, "MPI_Comm_join failed (%d)", err))
		return mtest_finalize();
	MPI_Comm_remote_size(inter, &rsize);
	mtest_check(rsize == 1, "remote size %d", rsize);
	v = 500 + mtest_rank;
	MPI_Sendrecv_replace(&v, 1, MPI_INT, 0, 3, 0, 3, inter, MPI_STATUS_IGNORE);
	mtest_check(v == 500 + partner, "got %d from the joined process", v);
	MPI_Intercomm_merge(inter, 0, &merged);
	MPI_Comm_rank(merged, &mrank);
	/* the two sides disagree on nothing: one is 0, the other 1 */
	MPI_Sendrecv(&mrank, 1, MPI_INT, 1 - mrank, 4, &other, 1, MPI_INT, 1 - mrank, 4, merged,
		     MPI_STATUS_IGNORE);
	mtest_check((mrank == 0 || mrank == 1) && other == 1 - mrank, "merged ranks %d and %d",
		    mrank, other);
	MPI_Comm_free(&merged);
	MPI_Comm_disconnect(&inter);
	return mtest_finalize();
}
