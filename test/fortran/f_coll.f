! SPDX-License-Identifier: MIT
!
! Collectives through the F77 bindings (fixed form, include 'mpif.h'):
! barrier, bcast, reduce and allreduce with MPI_IN_PLACE, gather and
! gatherv, scatter and scatterv, allgather (also in place) and
! allgatherv, alltoallv, reduce_scatter, reduce_scatter_block, scan,
! exscan, user-defined ops from mpi_op_create with Fortran subroutines
! (a commutative one, and a non-commutative 2x2 matrix product whose
! result shows the order of the operands) in reduce, allreduce and scan,
! mpi_op_free, and ibcast/iallreduce completed by mpi_wait/mpi_waitall.
! Every rank computes the expected results itself.
!
! The checks (chki, chkd), the start and the end come from fcheck.f90,
! whose common block /ferrs/ holds myrank and nprocs.
!
! Ranks: any count >= 2, at most 64 (validated at 2, 3 and 4).
!
      program f_coll
      implicit none
      include 'mpif.h'
      integer ierr

      call mpi_init(ierr)
      call fcstart('f_coll', 2, 64)

      call tbcast
      call tinplace
      call tgather
      call tscatter
      call tallg
      call ta2av
      call tredsc
      call tscan
      call tuserop
      call tnoncom
      call tnbc
      call fcfinish
      end

! ---------------------------------------------------------------------
! bcast from every root in turn, and a barrier after each.
! ---------------------------------------------------------------------
      subroutine tbcast
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer buf(10), root, i, ierr
      double precision d(3)

      do root = 0, nprocs - 1
         do i = 1, 10
            buf(i) = -1
            if (myrank .eq. root) buf(i) = 100 * root + i
         enddo
         call mpi_bcast(buf, 10, MPI_INTEGER, root, MPI_COMM_WORLD,
     &        ierr)
         call chki('mpi_bcast ierr', ierr, MPI_SUCCESS)
         do i = 1, 10
            call chki('bcast data', buf(i), 100 * root + i)
         enddo
         call mpi_barrier(MPI_COMM_WORLD, ierr)
         call chki('mpi_barrier ierr', ierr, MPI_SUCCESS)
      enddo
      do i = 1, 3
         d(i) = 0.0d0
         if (myrank .eq. 1) d(i) = dble(i) / 8.0d0
      enddo
      call mpi_bcast(d(2), 2, MPI_DOUBLE_PRECISION, 1, MPI_COMM_WORLD,
     &     ierr)
      if (myrank .ne. 1) then
         call chkd('bcast into d(2): d(1) untouched', d(1), 0.0d0)
      endif
      call chkd('bcast into d(2): d(2)', d(2), 2.0d0 / 8.0d0)
      call chkd('bcast into d(2): d(3)', d(3), 3.0d0 / 8.0d0)
      end

! ---------------------------------------------------------------------
! MPI_IN_PLACE: reduce (at the root only), allreduce, allgather.
! ---------------------------------------------------------------------
      subroutine tinplace
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer a(4), b(4), g(64), i, ierr, n, root
      double precision d(2)

      n = nprocs
      root = n - 1
      do i = 1, 4
         a(i) = myrank * i + 1
         b(i) = -7
      enddo
      if (myrank .eq. root) then
         call mpi_reduce(MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_SUM,
     &        root, MPI_COMM_WORLD, ierr)
         call chki('reduce MPI_IN_PLACE ierr', ierr, MPI_SUCCESS)
         do i = 1, 4
            call chki('reduce MPI_IN_PLACE data', a(i),
     &           i * (n * (n - 1) / 2) + n)
         enddo
      else
         call mpi_reduce(a, b, 4, MPI_INTEGER, MPI_SUM, root,
     &        MPI_COMM_WORLD, ierr)
         do i = 1, 4
            call chki('reduce: sendbuf of a non-root changed', a(i),
     &           myrank * i + 1)
            call chki('reduce: recvbuf of a non-root changed', b(i),
     &           -7)
         enddo
      endif

      do i = 1, 4
         a(i) = myrank - i
      enddo
      call mpi_allreduce(MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call chki('allreduce MPI_IN_PLACE ierr', ierr, MPI_SUCCESS)
      do i = 1, 4
         call chki('allreduce MPI_IN_PLACE MAX', a(i), n - 1 - i)
      enddo
      d(1) = dble(myrank) + 0.5d0
      d(2) = -dble(myrank)
      call mpi_allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE_PRECISION,
     &     MPI_SUM, MPI_COMM_WORLD, ierr)
      call chkd('allreduce MPI_IN_PLACE SUM d(1)', d(1),
     &     dble(n * (n - 1) / 2) + 0.5d0 * dble(n))
      call chkd('allreduce MPI_IN_PLACE SUM d(2)', d(2),
     &     -dble(n * (n - 1) / 2))

      do i = 1, n
         g(i) = -1
      enddo
      g(myrank + 1) = 3 * myrank + 5
      call mpi_allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 1,
     &     MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call chki('allgather MPI_IN_PLACE ierr', ierr, MPI_SUCCESS)
      do i = 1, n
         call chki('allgather MPI_IN_PLACE data', g(i), 3 * (i - 1) + 5)
      enddo
      end

! ---------------------------------------------------------------------
! gather of 2 integers per rank; gatherv of myrank+1 integers per rank
! to displacements with gaps, which must stay untouched.
! ---------------------------------------------------------------------
      subroutine tgather
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer s(64), r(6200), counts(64), displs(64)
      integer i, k, p, ierr, n, root, total, iexp
      logical inblk

      n = nprocs
      root = mod(1, n)
      do i = 1, 2
         s(i) = 10 * myrank + i
      enddo
      do i = 1, 2 * n
         r(i) = -1
      enddo
      call mpi_gather(s, 2, MPI_INTEGER, r, 2, MPI_INTEGER, root,
     &     MPI_COMM_WORLD, ierr)
      call chki('mpi_gather ierr', ierr, MPI_SUCCESS)
      if (myrank .eq. root) then
         do p = 0, n - 1
            do i = 1, 2
               call chki('gather data', r(2 * p + i), 10 * p + i)
            enddo
         enddo
      endif

!     rank p sends p+1 integers; they land at displs(p+1) = 3*p*(p+1)/2
!     (gaps grow with p); everything else stays -1
      do i = 1, myrank + 1
         s(i) = 1000 * myrank + i
      enddo
      total = 0
      do p = 0, n - 1
         counts(p + 1) = p + 1
         displs(p + 1) = 3 * p * (p + 1) / 2
         total = displs(p + 1) + counts(p + 1)
      enddo
      do i = 1, total + 2
         r(i) = -1
      enddo
      call mpi_gatherv(s, myrank + 1, MPI_INTEGER, r, counts, displs,
     &     MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call chki('mpi_gatherv ierr', ierr, MPI_SUCCESS)
      if (myrank .eq. 0) then
         do i = 1, total + 2
            iexp = -1
            do p = 0, n - 1
               k = i - displs(p + 1)
               inblk = k .ge. 1 .and. k .le. counts(p + 1)
               if (inblk) iexp = 1000 * p + k
            enddo
            call chki('gatherv data', r(i), iexp)
         enddo
      endif
      end

! ---------------------------------------------------------------------
! scatter of 3 integers per rank; scatterv of myrank+1 doubles per rank
! from displacements in reverse order.
! ---------------------------------------------------------------------
      subroutine tscatter
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer s(192), r(4), counts(64), displs(64)
      double precision ds(4096), dr(65)
      integer i, p, ierr, n, root, off

      n = nprocs
      root = n - 1
      do i = 1, 3 * n
         s(i) = -1
         if (myrank .eq. root) s(i) = 7 * i
      enddo
      do i = 1, 4
         r(i) = -1
      enddo
      call mpi_scatter(s, 3, MPI_INTEGER, r, 3, MPI_INTEGER, root,
     &     MPI_COMM_WORLD, ierr)
      call chki('mpi_scatter ierr', ierr, MPI_SUCCESS)
      do i = 1, 3
         call chki('scatter data', r(i), 7 * (3 * myrank + i))
      enddo
      call chki('scatter wrote past its count', r(4), -1)

!     block for rank p is at the end for p = 0, going backwards
      off = 0
      do p = n - 1, 0, -1
         counts(p + 1) = p + 1
         displs(p + 1) = off
         off = off + p + 1
      enddo
      do i = 1, off
         ds(i) = -1.0d0
      enddo
      if (myrank .eq. 0) then
         do p = 0, n - 1
            do i = 1, p + 1
               ds(displs(p + 1) + i) = dble(p) + dble(i) / 4.0d0
            enddo
         enddo
      endif
      do i = 1, n + 1
         dr(i) = -1.0d0
      enddo
      call mpi_scatterv(ds, counts, displs, MPI_DOUBLE_PRECISION, dr,
     &     myrank + 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
      call chki('mpi_scatterv ierr', ierr, MPI_SUCCESS)
      do i = 1, myrank + 1
         call chkd('scatterv data', dr(i),
     &        dble(myrank) + dble(i) / 4.0d0)
      enddo
      call chkd('scatterv wrote past its count', dr(myrank + 2),
     &     -1.0d0)
      end

! ---------------------------------------------------------------------
! allgather of a REAL pair; allgatherv of 2*myrank+1 integers.
! ---------------------------------------------------------------------
      subroutine tallg
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      real rs(2), rr(128)
      integer s(130), r(4096), counts(64), displs(64)
      integer i, p, ierr, n, off

      n = nprocs
      rs(1) = real(myrank)
      rs(2) = -real(myrank) * 0.5
      call mpi_allgather(rs, 2, MPI_REAL, rr, 2, MPI_REAL,
     &     MPI_COMM_WORLD, ierr)
      call chki('mpi_allgather ierr', ierr, MPI_SUCCESS)
      do p = 0, n - 1
         call chkd('allgather REAL (1)', dble(rr(2 * p + 1)), dble(p))
         call chkd('allgather REAL (2)', dble(rr(2 * p + 2)),
     &        -dble(p) * 0.5d0)
      enddo

      off = 0
      do p = 0, n - 1
         counts(p + 1) = 2 * p + 1
         displs(p + 1) = off
         off = off + 2 * p + 1
      enddo
      do i = 1, 2 * myrank + 1
         s(i) = 100 * myrank + i
      enddo
      do i = 1, off
         r(i) = -1
      enddo
      call mpi_allgatherv(s, 2 * myrank + 1, MPI_INTEGER, r, counts,
     &     displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call chki('mpi_allgatherv ierr', ierr, MPI_SUCCESS)
      do p = 0, n - 1
         do i = 1, 2 * p + 1
            call chki('allgatherv data', r(displs(p + 1) + i),
     &           100 * p + i)
         enddo
      enddo
      end

! ---------------------------------------------------------------------
! alltoallv: rank r sends 1 + mod(r + p, 3) integers to rank p; the
! receive blocks are laid out in reverse rank order with a gap of one.
! ---------------------------------------------------------------------
      subroutine ta2av
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer s(256), r(320), scounts(64), sdispls(64)
      integer rcounts(64), rdispls(64)
      integer i, p, ierr, n, off, c

      n = nprocs
      off = 0
      do p = 0, n - 1
         c = 1 + mod(myrank + p, 3)
         scounts(p + 1) = c
         sdispls(p + 1) = off
         do i = 1, c
            s(off + i) = 1000 * myrank + 10 * p + i
         enddo
         off = off + c
      enddo
      off = 0
      do p = n - 1, 0, -1
         rcounts(p + 1) = 1 + mod(p + myrank, 3)
         rdispls(p + 1) = off
         off = off + rcounts(p + 1) + 1
      enddo
      do i = 1, off
         r(i) = -1
      enddo
      call mpi_alltoallv(s, scounts, sdispls, MPI_INTEGER, r, rcounts,
     &     rdispls, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call chki('mpi_alltoallv ierr', ierr, MPI_SUCCESS)
      do p = 0, n - 1
         do i = 1, rcounts(p + 1)
            call chki('alltoallv data', r(rdispls(p + 1) + i),
     &           1000 * p + 10 * myrank + i)
         enddo
         call chki('alltoallv gap', r(rdispls(p + 1) +
     &        rcounts(p + 1) + 1), -1)
      enddo
      end

! ---------------------------------------------------------------------
! reduce_scatter with block sizes 1, 2, ..., n; reduce_scatter_block
! with blocks of 2.
! ---------------------------------------------------------------------
      subroutine tredsc
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer s(2080), r(65), counts(64)
      integer i, ierr, n, total, off, j

      n = nprocs
      total = n * (n + 1) / 2
      do i = 1, total
         s(i) = myrank + i
      enddo
      do i = 1, n
         counts(i) = i
      enddo
      do i = 1, n + 1
         r(i) = -1
      enddo
      call mpi_reduce_scatter(s, r, counts, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call chki('mpi_reduce_scatter ierr', ierr, MPI_SUCCESS)
!     my block starts after the blocks of ranks 0..myrank-1
      off = myrank * (myrank + 1) / 2
      do i = 1, myrank + 1
         j = off + i
         call chki('reduce_scatter data', r(i),
     &        n * j + n * (n - 1) / 2)
      enddo
      call chki('reduce_scatter wrote past its block', r(myrank + 2),
     &     -1)

      do i = 1, 2 * n
         s(i) = (myrank + 1) * i
      enddo
      r(1) = -1
      r(2) = -1
      r(3) = -1
      call mpi_reduce_scatter_block(s, r, 2, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call chki('mpi_reduce_scatter_block ierr', ierr, MPI_SUCCESS)
      do i = 1, 2
         j = 2 * myrank + i
         call chki('reduce_scatter_block MAX', r(i), n * j)
      enddo
      call chki('reduce_scatter_block wrote past its block', r(3), -1)
      end

! ---------------------------------------------------------------------
! scan and exscan with MPI_SUM; exscan's result on rank 0 is undefined
! and not checked.
! ---------------------------------------------------------------------
      subroutine tscan
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer a(2), b(2), ierr, r
      double precision d, ds

      r = myrank
      a(1) = r + 1
      a(2) = -2 * r
      b(1) = -1
      b(2) = -1
      call mpi_scan(a, b, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &     ierr)
      call chki('mpi_scan ierr', ierr, MPI_SUCCESS)
      call chki('scan SUM (1)', b(1), (r + 1) * (r + 2) / 2)
      call chki('scan SUM (2)', b(2), -r * (r + 1))
      d = dble(r) + 0.25d0
      ds = -1.0d0
      call mpi_scan(d, ds, 1, MPI_DOUBLE_PRECISION, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call chkd('scan MAX double', ds, dble(r) + 0.25d0)

      b(1) = -1
      b(2) = -1
      call mpi_exscan(a, b, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &     ierr)
      call chki('mpi_exscan ierr', ierr, MPI_SUCCESS)
      if (r .gt. 0) then
         call chki('exscan SUM (1)', b(1), r * (r + 1) / 2)
         call chki('exscan SUM (2)', b(2), -(r - 1) * r)
      endif
      end

! ---------------------------------------------------------------------
! A commutative user op on INTEGER: the sum modulo 1000003 (the
! inputs are near 10**6, so a plain sum would differ). It counts its
! calls and the calls that got a datatype other than MPI_INTEGER.
! ---------------------------------------------------------------------
      subroutine modsum(invec, inoutvec, len, datatype)
      implicit none
      include 'mpif.h'
      integer len, datatype
      integer invec(len), inoutvec(len)
      integer i, ncalls, baddt
      common /opstat/ ncalls, baddt
      ncalls = ncalls + 1
      if (datatype .ne. MPI_INTEGER) baddt = baddt + 1
      do i = 1, len
         inoutvec(i) = mod(invec(i) + inoutvec(i), 1000003)
      enddo
      end

      subroutine tuserop
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer ncalls, baddt
      common /opstat/ ncalls, baddt
      external modsum
      integer op, a(5), b(5), e(5), i, ierr, n, p

      ncalls = 0
      baddt = 0
      n = nprocs
      call mpi_op_create(modsum, .true., op, ierr)
      call chki('mpi_op_create ierr', ierr, MPI_SUCCESS)
      do i = 1, 5
         a(i) = 999999 + myrank * i
         b(i) = -1
!        the expected result, for reduce and allreduce
         e(i) = 0
         do p = 0, n - 1
            e(i) = mod(e(i) + 999999 + p * i, 1000003)
         enddo
      enddo
      call mpi_reduce(a, b, 5, MPI_INTEGER, op, 0, MPI_COMM_WORLD,
     &     ierr)
      call chki('reduce with a user op ierr', ierr, MPI_SUCCESS)
      if (myrank .eq. 0) then
         do i = 1, 5
            call chki('reduce with a commutative user op', b(i), e(i))
         enddo
      endif
      call mpi_allreduce(a, b, 5, MPI_INTEGER, op, MPI_COMM_WORLD,
     &     ierr)
      do i = 1, 5
         call chki('allreduce with a commutative user op', b(i), e(i))
      enddo
      call chki('user op saw a datatype other than MPI_INTEGER',
     &     baddt, 0)
!     with n ranks the op combines n-1 pairs of vectors in the reduce
!     somewhere; at least one call happened on some rank
      call mpi_allreduce(MPI_IN_PLACE, ncalls, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (ncalls .lt. 1) call chki('user op calls in all', ncalls, 1)
      call mpi_op_free(op, ierr)
      call chki('mpi_op_free ierr', ierr, MPI_SUCCESS)
      call chki('op after mpi_op_free', op, MPI_OP_NULL)
      end

! ---------------------------------------------------------------------
! A non-commutative op: 2x2 integer matrices (a derived type of 4
! INTEGERs, column major) multiplied modulo 10007. For ranks 0..n-1 the
! result must be M(0)*M(1)*...*M(n-1), in that order. The op gets
! invec = left operand, inoutvec = right operand, result in inoutvec.
! ---------------------------------------------------------------------
      subroutine matmul2(invec, inoutvec, len, datatype)
      implicit none
      integer len, datatype
      integer invec(4, len), inoutvec(4, len)
      integer i, j, c(4)
      integer mattype, nbad
      common /matst/ mattype, nbad
      if (datatype .ne. mattype) nbad = nbad + 1
      do i = 1, len
         call mmul(invec(1, i), inoutvec(1, i), c)
         do j = 1, 4
            inoutvec(j, i) = c(j)
         enddo
      enddo
      end

! c = a * b modulo 10007 (2x2, column major)
      subroutine mmul(a, b, c)
      implicit none
      integer a(4), b(4), c(4)
      c(1) = mod(a(1) * b(1) + a(3) * b(2), 10007)
      c(2) = mod(a(2) * b(1) + a(4) * b(2), 10007)
      c(3) = mod(a(1) * b(3) + a(3) * b(4), 10007)
      c(4) = mod(a(2) * b(3) + a(4) * b(4), 10007)
      end

! M(p) for item k: [[p+k+1, 1], [p+2, 2*k+1]] (column major)
      subroutine matof(p, k, m)
      implicit none
      integer p, k, m(4)
      m(1) = p + k + 1
      m(2) = p + 2
      m(3) = 1
      m(4) = 2 * k + 1
      end

! e = M(0) * M(1) * ... * M(last) for item k, the expected result
      subroutine matprod(last, k, e)
      implicit none
      integer last, k, e(4)
      integer m(4), t(4), i, p
      call matof(0, k, e)
      do p = 1, last
         call matof(p, k, m)
         call mmul(e, m, t)
         do i = 1, 4
            e(i) = t(i)
         enddo
      enddo
      end

! The nitem matrices in b must be those in e.
      subroutine chkmat(what, nitem, b, e)
      implicit none
      character*(*) what
      integer nitem, b(4, nitem), e(4, nitem)
      integer i, k
      do k = 1, nitem
         do i = 1, 4
            call chki(what, b(i, k), e(i, k))
         enddo
      enddo
      end

      subroutine tnoncom
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer mattype, nbad
      common /matst/ mattype, nbad
      external matmul2
      integer nitem
      parameter (nitem = 3)
      integer op, a(4, nitem), b(4, nitem), e(4, nitem)
      integer i, k, ierr, n

      n = nprocs
      nbad = 0
      call mpi_type_contiguous(4, MPI_INTEGER, mattype, ierr)
      call mpi_type_commit(mattype, ierr)
      call mpi_op_create(matmul2, .false., op, ierr)
      call chki('mpi_op_create (non-commutative) ierr', ierr,
     &     MPI_SUCCESS)
      do k = 1, nitem
         call matof(myrank, k, a(1, k))
      enddo

!     reduce to rank 1 and allreduce: the product over all ranks
      do k = 1, nitem
         do i = 1, 4
            b(i, k) = -1
         enddo
      enddo
      call mpi_reduce(a, b, nitem, mattype, op, 1, MPI_COMM_WORLD,
     &     ierr)
      call chki('reduce with a non-commutative op ierr', ierr,
     &     MPI_SUCCESS)
      do k = 1, nitem
         call matprod(n - 1, k, e(1, k))
      enddo
      if (myrank .eq. 1) then
         call chkmat('reduce, non-commutative: product in rank order',
     &        nitem, b, e)
      endif
      call mpi_allreduce(a, b, nitem, mattype, op, MPI_COMM_WORLD,
     &     ierr)
      call chkmat('allreduce, non-commutative: product in rank order',
     &     nitem, b, e)

!     scan: the product of M(0)..M(myrank)
      call mpi_scan(a, b, nitem, mattype, op, MPI_COMM_WORLD, ierr)
      call chki('scan with a non-commutative op ierr', ierr,
     &     MPI_SUCCESS)
      do k = 1, nitem
         call matprod(myrank, k, e(1, k))
      enddo
      call chkmat('scan, non-commutative: prefix product', nitem, b, e)
      call chki('non-commutative op saw another datatype', nbad, 0)
      call mpi_op_free(op, ierr)
      call chki('op after mpi_op_free', op, MPI_OP_NULL)
      call mpi_type_free(mattype, ierr)
      end

! ---------------------------------------------------------------------
! ibcast and iallreduce, each completed by mpi_wait, then both in
! flight together and completed by mpi_waitall. The buffers are in
! common so that the compiler cannot keep them in registers across
! the wait calls.
! ---------------------------------------------------------------------
      subroutine tnbc
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer bb(8), sa(3), ra(3)
      double precision db(4)
      common /nbcbuf/ db, bb, sa, ra
      integer req, reqs(2), st(MPI_STATUS_SIZE)
      integer sts(MPI_STATUS_SIZE, 2)
      integer i, ierr, n, root

      n = nprocs
      root = n - 1
      do i = 1, 8
         bb(i) = -1
         if (myrank .eq. root) bb(i) = 50 + i
      enddo
      call mpi_ibcast(bb, 8, MPI_INTEGER, root, MPI_COMM_WORLD, req,
     &     ierr)
      call chki('mpi_ibcast ierr', ierr, MPI_SUCCESS)
      call mpi_wait(req, st, ierr)
      call chki('wait for ibcast ierr', ierr, MPI_SUCCESS)
      call chki('ibcast request after wait', req, MPI_REQUEST_NULL)
      do i = 1, 8
         call chki('ibcast data', bb(i), 50 + i)
      enddo

      do i = 1, 3
         sa(i) = myrank + i
         ra(i) = -1
      enddo
      call mpi_iallreduce(sa, ra, 3, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, req, ierr)
      call chki('mpi_iallreduce ierr', ierr, MPI_SUCCESS)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      do i = 1, 3
         call chki('iallreduce data', ra(i), n * (n - 1) / 2 + n * i)
      enddo

      do i = 1, 4
         db(i) = 0.0d0
         if (myrank .eq. 0) db(i) = dble(i) * 1.25d0
      enddo
      do i = 1, 3
         sa(i) = myrank * i
         ra(i) = -1
      enddo
      call mpi_ibcast(db, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call mpi_iallreduce(sa, ra, 3, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, reqs(2), ierr)
      call mpi_waitall(2, reqs, sts, ierr)
      call chki('waitall for ibcast+iallreduce ierr', ierr,
     &     MPI_SUCCESS)
      do i = 1, 4
         call chkd('ibcast (with iallreduce) data', db(i),
     &        dble(i) * 1.25d0)
      enddo
      do i = 1, 3
         call chki('iallreduce (with ibcast) MAX', ra(i), (n - 1) * i)
      enddo
      end
