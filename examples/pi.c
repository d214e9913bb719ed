/* SPDX-License-Identifier: MIT */
/*
 * Quick-start example: computes pi as the integral of 4/(1+x^2) over
 * [0, 1] with the midpoint rule on N intervals (first argument, default
 * 20 million). Each rank integrates one contiguous block of intervals and
 * sends its partial sum to rank 0 with MPI_Send; rank 0 adds them in rank
 * order, so the result does not depend on message arrival order, and
 * prints the value, its error and the time taken.
 *
 *   mpicc -o pi pi.c && mpirun -n 4 ./pi [intervals]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PI_REF 3.141592653589793238462643

/*
 * The midpoint sum over intervals [first, last) of width h. Compensated
 * (Kahan) summation: with tens of millions of terms plain summation loses
 * about 1e-13 to rounding, far more than the method's own error.
 */
static double pi_partial(long first, long last, double h)
{
	double sum = 0.0, comp = 0.0, x, term, t;
	long i;

	for (i = first; i < last; i++) {
		x = h * ((double)i + 0.5);
		term = 4.0 / (1.0 + x * x) - comp;
		t = sum + term;
		comp = (t - sum) - term;
		sum = t;
	}
	return sum * h;
}

int main(int argc, char **argv)
{
	long n = 20000000, first, last;
	int rank, size, src;
	double t0, part, total, h, err;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		n = atol(argv[1]);
	if (n < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: %s [intervals > 0]\n", argv[0]);
		MPI_Finalize();
		return 2;
	}

	t0 = MPI_Wtime();
	h = 1.0 / (double)n;
	/* Blocks differ by at most one interval, so no rank waits long. */
	first = n / size * rank + (rank < n % size ? rank : n % size);
	last = first + n / size + (rank < n % size ? 1 : 0);
	part = pi_partial(first, last, h);

	if (rank != 0) {
		MPI_Send(&part, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
	} else {
		total = part;
		for (src = 1; src < size; src++) {
			MPI_Recv(&part, 1, MPI_DOUBLE, src, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			total += part;
		}
		err = total > PI_REF ? total - PI_REF : PI_REF - total;
		printf("pi is approximately %.16f, error %.16f, %d ranks, "
		       "%.3f s\n", total, err, size, MPI_Wtime() - t0);
	}
	MPI_Finalize();
	return 0;
}
