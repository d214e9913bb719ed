! SPDX-License-Identifier: MIT
!
! The MPI calls of the NAS Parallel Benchmarks (MPI versions), made the
! way such F77 codes make them: fixed form, include 'mpif.h', implicit
! typing switched off so that mpif.h must declare everything used
! (MPI_WTIME as DOUBLE PRECISION included). Covered: mpi_init,
! mpi_finalize, mpi_comm_rank/size, mpi_comm_dup, mpi_comm_split (also
! with MPI_UNDEFINED), mpi_comm_free, mpi_wtime, mpi_send/mpi_recv with
! a status array, mpi_isend/mpi_irecv/mpi_wait/mpi_waitall with an
! array of statuses, mpi_barrier, mpi_bcast, mpi_reduce, mpi_allreduce,
! mpi_alltoall; the types DOUBLE PRECISION, DOUBLE COMPLEX, INTEGER,
! LOGICAL, REAL and COMPLEX; the ops SUM, MAX, MIN, LAND and LOR;
! scalars and array elements (a(3), x(1,k)) as buffers. MPI_ERR_OTHER
! is the code of the mpi_abort in the (normally unused) error path.
! The checks (chkok, chki, chkd, chkz, chkl), the library check and
! the sum and report of the errors come from fcheck.f90, whose common
! block /ferrs/ holds myrank and nprocs.
!
! Ranks: any count from 2 to 64 (validated at 2, 3 and 4).
!
      program f_nas
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer ierr, toterr

      call mpi_init(ierr)
      call chkok(ierr, 'mpi_init')
      call mpi_comm_rank(MPI_COMM_WORLD, myrank, ierr)
      call chkok(ierr, 'mpi_comm_rank')
      call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
      call chkok(ierr, 'mpi_comm_size')
      if (nprocs .lt. 2) then
         write(*,*) 'f_nas needs at least 2 processes'
         call mpi_abort(MPI_COMM_WORLD, MPI_ERR_OTHER, ierr)
      endif
!     MTEST_EXPECT_LIBRARY (fcheck.f90)
      call chklib

      call twtime
      call tring
      call telems
      call ttypes
      call texch
      call tbcast
      call tredu
      call tcplx
      call tlogic
      call ta2a
      call tsplit

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'final mpi_barrier')
!     the sum of the error counts of all ranks, printed by rank 0 after
!     mpi_finalize (fcheck.f90)
      call fcsum(toterr)
      call mpi_finalize(ierr)
      call fcreport(toterr)
      end

! ---------------------------------------------------------------------
! mpi_wtime: a DOUBLE PRECISION function (declared by mpif.h) whose
! value increases; the loop is capped, 10 s at most in practice.
! ---------------------------------------------------------------------
      subroutine twtime
      implicit none
      include 'mpif.h'
      double precision t0, t1, t2
      integer i
      t0 = mpi_wtime()
      t1 = t0
      do i = 1, 100000000
         t1 = mpi_wtime()
         if (t1 .gt. t0) goto 10
      enddo
 10   continue
      if (.not. (t1 .gt. t0)) then
         call chkd('mpi_wtime did not increase', t1, t0)
      endif
      if (t1 - t0 .gt. 10.0d0) then
         call chkd('mpi_wtime step between two calls', t1 - t0,
     &        0.0d0)
      endif
      t2 = mpi_wtime()
      if (t2 .lt. t1) call chkd('mpi_wtime went backwards', t2, t1)
      end

! ---------------------------------------------------------------------
! A token ring with blocking mpi_send/mpi_recv of a DOUBLE PRECISION
! array; every hop checks the data and status(MPI_SOURCE/MPI_TAG).
! Then the same ring with an INTEGER scalar as the buffer.
! ---------------------------------------------------------------------
      subroutine tring
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer n
      parameter (n = 100)
      double precision buf(n)
      integer status(MPI_STATUS_SIZE)
      integer ierr, i, next, prev, itok, iexp, j
      double precision dexp

      next = mod(myrank + 1, nprocs)
      prev = mod(myrank + nprocs - 1, nprocs)
      if (myrank .eq. 0) then
         do i = 1, n
            buf(i) = dble(i)
         enddo
         call mpi_send(buf, n, MPI_DOUBLE_PRECISION, next, 11,
     &        MPI_COMM_WORLD, ierr)
         call chkok(ierr, 'ring mpi_send')
      endif
      do i = 1, n
         buf(i) = -1.0d0
      enddo
      status(MPI_SOURCE) = -99
      status(MPI_TAG) = -99
      call mpi_recv(buf, n, MPI_DOUBLE_PRECISION, prev, 11,
     &     MPI_COMM_WORLD, status, ierr)
      call chkok(ierr, 'ring mpi_recv')
      call chki('ring status(MPI_SOURCE)', status(MPI_SOURCE), prev)
      call chki('ring status(MPI_TAG)', status(MPI_TAG), 11)
!     the token has been through ranks 0..prev (rank 0 at the end)
      if (myrank .eq. 0) then
         j = nprocs - 1
      else
         j = myrank - 1
      endif
      do i = 1, n
         dexp = dble(i) + dble(j * (j + 1) / 2) * dble(i)
         if (buf(i) .ne. dexp) then
            call chkd('ring data', buf(i), dexp)
            goto 20
         endif
      enddo
 20   continue
      if (myrank .ne. 0) then
         do i = 1, n
            buf(i) = buf(i) + dble(myrank) * dble(i)
         enddo
         call mpi_send(buf, n, MPI_DOUBLE_PRECISION, next, 11,
     &     MPI_COMM_WORLD, ierr)
         call chkok(ierr, 'ring mpi_send')
      endif

!     integer scalar around the ring, the other way round
      if (myrank .eq. 0) then
         itok = 1000
         call mpi_send(itok, 1, MPI_INTEGER, prev, 12,
     &        MPI_COMM_WORLD, ierr)
      endif
      itok = -1
      call mpi_recv(itok, 1, MPI_INTEGER, next, 12, MPI_COMM_WORLD,
     &     status, ierr)
      call chkok(ierr, 'scalar mpi_recv')
      call chki('scalar status(MPI_SOURCE)', status(MPI_SOURCE), next)
      call chki('scalar status(MPI_TAG)', status(MPI_TAG), 12)
!     ranks nprocs-1 down to next have added their rank
      if (myrank .eq. 0) then
         iexp = 1000 + nprocs * (nprocs - 1) / 2
      else
         iexp = 1000 + (nprocs * (nprocs - 1) - myrank *
     &        (myrank + 1)) / 2
      endif
      call chki('scalar token', itok, iexp)
      if (myrank .ne. 0) then
         itok = itok + myrank
         call mpi_send(itok, 1, MPI_INTEGER, prev, 12,
     &        MPI_COMM_WORLD, ierr)
      endif
      end

! ---------------------------------------------------------------------
! Array elements as buffers: x(1,k) sends column k of a 2-d array and
! y(1,k) receives into a column; a(3) sends a tail of a vector. The
! neighbouring columns/elements must be left alone.
! ---------------------------------------------------------------------
      subroutine telems
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer m, nc
      parameter (m = 5, nc = 4)
      double precision x(m, nc), y(m, nc), dexp
      integer a(10), b(10)
      integer status(MPI_STATUS_SIZE)
      integer ierr, i, k, peer, iexp

      if (myrank .gt. 1) return
      peer = 1 - myrank
      do k = 1, nc
         do i = 1, m
            x(i, k) = dble(100 * myrank + 10 * k + i)
            y(i, k) = -1.0d0
         enddo
      enddo
      do i = 1, 10
         a(i) = 100 * myrank + i
         b(i) = -1
      enddo
      if (myrank .eq. 0) then
         call mpi_send(x(1, 2), m, MPI_DOUBLE_PRECISION, peer, 21,
     &        MPI_COMM_WORLD, ierr)
         call mpi_send(a(3), 6, MPI_INTEGER, peer, 22,
     &        MPI_COMM_WORLD, ierr)
         call mpi_recv(y(1, 4), m, MPI_DOUBLE_PRECISION, peer, 23,
     &        MPI_COMM_WORLD, status, ierr)
         call chki('x(1,k) recv status(MPI_SOURCE)',
     &        status(MPI_SOURCE), peer)
      else
         call mpi_recv(y(1, 3), m, MPI_DOUBLE_PRECISION, peer, 21,
     &        MPI_COMM_WORLD, status, ierr)
         call chki('x(1,k) recv status(MPI_TAG)', status(MPI_TAG), 21)
         call mpi_recv(b(2), 6, MPI_INTEGER, peer, 22,
     &        MPI_COMM_WORLD, status, ierr)
         call chki('a(3) recv status(MPI_TAG)', status(MPI_TAG), 22)
         call mpi_send(x(1, 1), m, MPI_DOUBLE_PRECISION, peer, 23,
     &        MPI_COMM_WORLD, ierr)
      endif
!     rank 1 got column 2 of rank 0 into column 3; rank 0 got column
!     1 of rank 1 into column 4
      do k = 1, nc
         do i = 1, m
            dexp = -1.0d0
            if (myrank .eq. 1 .and. k .eq. 3) dexp = dble(20 + i)
            if (myrank .eq. 0 .and. k .eq. 4) dexp = dble(110 + i)
            if (y(i, k) .ne. dexp) then
               call chkd('y(i,k) after column receive', y(i, k), dexp)
            endif
         enddo
      enddo
      if (myrank .eq. 1) then
         do i = 1, 10
            iexp = -1
            if (i .ge. 2 .and. i .le. 7) iexp = i + 1
            call chki('b(i) after a(3) -> b(2) transfer', b(i), iexp)
         enddo
      endif
      end

! ---------------------------------------------------------------------
! One message of each NAS datatype between ranks 0 and 1: REAL,
! COMPLEX, DOUBLE COMPLEX and LOGICAL arrays.
! ---------------------------------------------------------------------
      subroutine ttypes
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer n
      parameter (n = 7)
      real r(n)
      complex c(n)
      double complex z(n)
      logical l(n)
      integer status(MPI_STATUS_SIZE)
      integer ierr, i

      if (myrank .gt. 1) return
      if (myrank .eq. 0) then
         do i = 1, n
            r(i) = real(i) * 0.5
            c(i) = cmplx(real(i), -real(2 * i))
            z(i) = dcmplx(dble(i) * 0.25d0, dble(i) + 1.0d10)
            l(i) = mod(i, 3) .eq. 0
         enddo
         call mpi_send(r, n, MPI_REAL, 1, 31, MPI_COMM_WORLD, ierr)
         call mpi_send(c, n, MPI_COMPLEX, 1, 32, MPI_COMM_WORLD, ierr)
         call mpi_send(z, n, MPI_DOUBLE_COMPLEX, 1, 33,
     &        MPI_COMM_WORLD, ierr)
         call mpi_send(l, n, MPI_LOGICAL, 1, 34, MPI_COMM_WORLD, ierr)
      else
         do i = 1, n
            r(i) = -1.0
            c(i) = (-1.0, -1.0)
            z(i) = (-1.0d0, -1.0d0)
            l(i) = .true.
         enddo
         call mpi_recv(r, n, MPI_REAL, 0, 31, MPI_COMM_WORLD, status,
     &        ierr)
         call mpi_recv(c, n, MPI_COMPLEX, 0, 32, MPI_COMM_WORLD,
     &        status, ierr)
         call mpi_recv(z, n, MPI_DOUBLE_COMPLEX, 0, 33,
     &        MPI_COMM_WORLD, status, ierr)
         call chki('DOUBLE COMPLEX status(MPI_TAG)', status(MPI_TAG),
     &        33)
         call mpi_recv(l, n, MPI_LOGICAL, 0, 34, MPI_COMM_WORLD,
     &        status, ierr)
         call chki('LOGICAL status(MPI_SOURCE)', status(MPI_SOURCE), 0)
         do i = 1, n
            call chkd('MPI_REAL data', dble(r(i)), dble(i) * 0.5d0)
            call chkz('MPI_COMPLEX data', dcmplx(c(i)),
     &           dcmplx(dble(i), -dble(2 * i)))
            call chkz('MPI_DOUBLE_COMPLEX data', z(i),
     &           dcmplx(dble(i) * 0.25d0, dble(i) + 1.0d10))
            call chkl('MPI_LOGICAL data', l(i), mod(i, 3) .eq. 0)
         enddo
      endif
      end

! ---------------------------------------------------------------------
! The NAS halo exchange: irecv from both neighbours, isend to both,
! mpi_waitall with statuses(MPI_STATUS_SIZE, 4); the receive statuses
! are checked per request. Then a single irecv + send + mpi_wait.
! ---------------------------------------------------------------------
      subroutine texch
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer n
      parameter (n = 50)
      double precision outl(n), outr(n), inl(n), inr(n)
      integer req(4), statuses(MPI_STATUS_SIZE, 4)
      integer status(MPI_STATUS_SIZE)
      integer ierr, i, left, right, iv, iexp, it
!     buffers of nonblocking calls live in common, as in the NAS codes:
!     the compiler must then assume that mpi_waitall may change them
      common /nbexch/ outl, outr, inl, inr, iv

      left = mod(myrank + nprocs - 1, nprocs)
      right = mod(myrank + 1, nprocs)
      do it = 1, 3
         do i = 1, n
            outl(i) = dble(1000 * myrank + i + it)
            outr(i) = -dble(1000 * myrank + i + it)
            inl(i) = 0.0d0
            inr(i) = 0.0d0
         enddo
         do i = 1, 4
            statuses(MPI_SOURCE, i) = -99
            statuses(MPI_TAG, i) = -99
         enddo
!        what my left neighbour sends right arrives with tag 10
         call mpi_irecv(inl, n, MPI_DOUBLE_PRECISION, left, 10,
     &        MPI_COMM_WORLD, req(1), ierr)
         call chkok(ierr, 'mpi_irecv')
         call mpi_irecv(inr, n, MPI_DOUBLE_PRECISION, right, 20,
     &        MPI_COMM_WORLD, req(2), ierr)
         call mpi_isend(outr, n, MPI_DOUBLE_PRECISION, right, 10,
     &        MPI_COMM_WORLD, req(3), ierr)
         call chkok(ierr, 'mpi_isend')
         call mpi_isend(outl, n, MPI_DOUBLE_PRECISION, left, 20,
     &        MPI_COMM_WORLD, req(4), ierr)
         call mpi_waitall(4, req, statuses, ierr)
         call chkok(ierr, 'mpi_waitall')
         call chki('waitall statuses(MPI_SOURCE,1)',
     &        statuses(MPI_SOURCE, 1), left)
         call chki('waitall statuses(MPI_TAG,1)',
     &        statuses(MPI_TAG, 1), 10)
         call chki('waitall statuses(MPI_SOURCE,2)',
     &        statuses(MPI_SOURCE, 2), right)
         call chki('waitall statuses(MPI_TAG,2)',
     &        statuses(MPI_TAG, 2), 20)
         do i = 1, 4
            call chki('waitall req(i) not MPI_REQUEST_NULL', req(i),
     &           MPI_REQUEST_NULL)
         enddo
         do i = 1, n
            if (inl(i) .ne. -dble(1000 * left + i + it)) then
               call chkd('halo from left', inl(i),
     &              -dble(1000 * left + i + it))
               goto 30
            endif
            if (inr(i) .ne. dble(1000 * right + i + it)) then
               call chkd('halo from right', inr(i),
     &              dble(1000 * right + i + it))
               goto 30
            endif
         enddo
 30      continue
      enddo

!     mpi_wait on one request, with an integer scalar
      iv = -1
      call mpi_irecv(iv, 1, MPI_INTEGER, left, 40, MPI_COMM_WORLD,
     &     req(1), ierr)
      it = 7 * myrank + 3
      call mpi_send(it, 1, MPI_INTEGER, right, 40, MPI_COMM_WORLD, ierr)
      call mpi_wait(req(1), status, ierr)
      call chkok(ierr, 'mpi_wait')
      call chki('mpi_wait request', req(1), MPI_REQUEST_NULL)
      call chki('mpi_wait status(MPI_SOURCE)', status(MPI_SOURCE),
     &     left)
      call chki('mpi_wait status(MPI_TAG)', status(MPI_TAG), 40)
      iexp = 7 * left + 3
      call chki('mpi_wait data', iv, iexp)
      end

! ---------------------------------------------------------------------
! mpi_bcast of a scalar, of arrays of several types, and from a root
! other than 0; the barrier is the one NAS puts around its timers.
! ---------------------------------------------------------------------
      subroutine tbcast
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer niter, i, root, ierr
      double precision params(6), dexp
      logical flags(3)
      double complex z(2)

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'mpi_barrier')
      niter = -1
      if (myrank .eq. 0) niter = 250
      call mpi_bcast(niter, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'mpi_bcast')
      call chki('bcast of an integer scalar', niter, 250)

      root = nprocs - 1
      do i = 1, 6
         params(i) = 0.0d0
         if (myrank .eq. root) params(i) = 1.0d0 / dble(2 ** i)
      enddo
      do i = 1, 3
         flags(i) = myrank .eq. root .and. i .ne. 2
      enddo
      z(1) = (0.0d0, 0.0d0)
      z(2) = (0.0d0, 0.0d0)
      if (myrank .eq. root) then
         z(1) = (1.5d0, -2.5d0)
         z(2) = (-3.0d0, 4.0d0)
      endif
      call mpi_bcast(params, 6, MPI_DOUBLE_PRECISION, root,
     &     MPI_COMM_WORLD, ierr)
      call mpi_bcast(flags, 3, MPI_LOGICAL, root, MPI_COMM_WORLD, ierr)
      call mpi_bcast(z, 2, MPI_DOUBLE_COMPLEX, root, MPI_COMM_WORLD,
     &     ierr)
      do i = 1, 6
         dexp = 1.0d0 / dble(2 ** i)
         call chkd('bcast of DOUBLE PRECISION array', params(i), dexp)
      enddo
      do i = 1, 3
         call chkl('bcast of LOGICAL array', flags(i), i .ne. 2)
      enddo
      call chkz('bcast of DOUBLE COMPLEX z(1)', z(1),
     &     (1.5d0, -2.5d0))
      call chkz('bcast of DOUBLE COMPLEX z(2)', z(2),
     &     (-3.0d0, 4.0d0))
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      end

! ---------------------------------------------------------------------
! mpi_reduce and mpi_allreduce with SUM, MAX and MIN on DOUBLE
! PRECISION, INTEGER and REAL, scalars and array elements as buffers
! (the verification sums and timer maxima of the benchmarks).
! ---------------------------------------------------------------------
      subroutine tredu
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      double precision t, tmax, tmin, tsum, v(4), w(4)
      integer iv, isum, imax, imin, a(5), b(5), i, ierr, n
      real r(3), rs(3)

      n = nprocs
      t = dble(myrank + 1) * 0.5d0
      tmax = -1.0d0
      tmin = -1.0d0
      tsum = -1.0d0
      call mpi_reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0,
     &     MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'mpi_reduce')
      call mpi_reduce(t, tmin, 1, MPI_DOUBLE_PRECISION, MPI_MIN, 0,
     &     MPI_COMM_WORLD, ierr)
      call mpi_reduce(t, tsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &     MPI_COMM_WORLD, ierr)
      if (myrank .eq. 0) then
         call chkd('reduce MAX double', tmax, dble(n) * 0.5d0)
         call chkd('reduce MIN double', tmin, 0.5d0)
         call chkd('reduce SUM double', tsum,
     &        dble(n * (n + 1) / 2) * 0.5d0)
      else
         call chkd('reduce: recvbuf of a non-root', tmax, -1.0d0)
      endif

!     to a root other than 0, integers
      iv = 3 * myrank - 2
      isum = 0
      imax = 0
      imin = 0
      call mpi_reduce(iv, isum, 1, MPI_INTEGER, MPI_SUM, n - 1,
     &     MPI_COMM_WORLD, ierr)
      call mpi_reduce(iv, imax, 1, MPI_INTEGER, MPI_MAX, n - 1,
     &     MPI_COMM_WORLD, ierr)
      call mpi_reduce(iv, imin, 1, MPI_INTEGER, MPI_MIN, n - 1,
     &     MPI_COMM_WORLD, ierr)
      if (myrank .eq. n - 1) then
         call chki('reduce SUM integer', isum,
     &        3 * (n * (n - 1) / 2) - 2 * n)
         call chki('reduce MAX integer', imax, 3 * (n - 1) - 2)
         call chki('reduce MIN integer', imin, -2)
      endif

!     allreduce from and into array elements
      do i = 1, 4
         v(i) = dble(myrank * i)
         w(i) = -7.0d0
      enddo
      call mpi_allreduce(v(2), w(1), 3, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'mpi_allreduce')
      do i = 1, 3
         call chkd('allreduce SUM from v(2) into w(1)', w(i),
     &        dble((i + 1) * (n * (n - 1) / 2)))
      enddo
      call chkd('allreduce wrote past its count', w(4), -7.0d0)

      do i = 1, 5
         a(i) = mod(myrank + i, n) - i
         b(i) = 0
      enddo
      call mpi_allreduce(a, b, 5, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      do i = 1, 5
         call chki('allreduce MAX integer', b(i), n - 1 - i)
      enddo
      call mpi_allreduce(a, b, 5, MPI_INTEGER, MPI_MIN,
     &     MPI_COMM_WORLD, ierr)
      do i = 1, 5
         call chki('allreduce MIN integer', b(i), -i)
      enddo

      do i = 1, 3
         r(i) = real(myrank + i) * 0.25
         rs(i) = 0.0
      enddo
      call mpi_allreduce(r, rs, 3, MPI_REAL, MPI_SUM, MPI_COMM_WORLD,
     &     ierr)
      do i = 1, 3
         call chkd('allreduce SUM real', dble(rs(i)),
     &        dble(n * (n - 1) / 2 + n * i) * 0.25d0)
      enddo
      call mpi_allreduce(r(3), rs(1), 1, MPI_REAL, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call chkd('allreduce MAX real', dble(rs(1)),
     &     dble(n - 1 + 3) * 0.25d0)
      end

! ---------------------------------------------------------------------
! Complex reductions (FT's checksums): DOUBLE COMPLEX and COMPLEX sums,
! reduce and allreduce, values exact in binary.
! ---------------------------------------------------------------------
      subroutine tcplx
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      double complex z(3), zs(3), chk, allchk, zexp
      complex c(2), cs(2)
      integer i, ierr, n, s

      n = nprocs
      s = n * (n - 1) / 2
      do i = 1, 3
         z(i) = dcmplx(dble(myrank + i), -dble(2 * myrank) * 0.5d0)
         zs(i) = (0.0d0, 0.0d0)
      enddo
      call mpi_reduce(z, zs, 3, MPI_DOUBLE_COMPLEX, MPI_SUM, 0,
     &     MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'reduce DOUBLE COMPLEX')
      if (myrank .eq. 0) then
         do i = 1, 3
            zexp = dcmplx(dble(s + n * i), -dble(s))
            call chkz('reduce SUM DOUBLE COMPLEX', zs(i), zexp)
         enddo
      endif
      chk = dcmplx(1.0d0, dble(myrank))
      allchk = (0.0d0, 0.0d0)
      call mpi_allreduce(chk, allchk, 1, MPI_DOUBLE_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call chkz('allreduce SUM DOUBLE COMPLEX scalar', allchk,
     &     dcmplx(dble(n), dble(s)))

      c(1) = cmplx(real(myrank), 1.0)
      c(2) = cmplx(-0.5, real(2 * myrank))
      cs(1) = (0.0, 0.0)
      cs(2) = (0.0, 0.0)
      call mpi_allreduce(c, cs, 2, MPI_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call chkz('allreduce SUM COMPLEX (1)', dcmplx(cs(1)),
     &     dcmplx(dble(s), dble(n)))
      call chkz('allreduce SUM COMPLEX (2)', dcmplx(cs(2)),
     &     dcmplx(-0.5d0 * dble(n), dble(2 * s)))
      cs(1) = (0.0, 0.0)
      call mpi_reduce(c(2), cs(1), 1, MPI_COMPLEX, MPI_SUM, n - 1,
     &     MPI_COMM_WORLD, ierr)
      if (myrank .eq. n - 1) then
         call chkz('reduce SUM COMPLEX from c(2)', dcmplx(cs(1)),
     &        dcmplx(-0.5d0 * dble(n), dble(2 * s)))
      endif
      end

! ---------------------------------------------------------------------
! MPI_LAND and MPI_LOR on LOGICAL (the verification flags).
! ---------------------------------------------------------------------
      subroutine tlogic
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      logical l(4), lr(4), verified, allver
      integer i, ierr

!     (1) only rank 0 true, (2) all true, (3) all false,
!     (4) all but the last rank true
      l(1) = myrank .eq. 0
      l(2) = .true.
      l(3) = .false.
      l(4) = myrank .ne. nprocs - 1
      do i = 1, 4
         lr(i) = .false.
      enddo
      call mpi_allreduce(l, lr, 4, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'allreduce LAND')
      call chkl('LAND one true', lr(1), .false.)
      call chkl('LAND all true', lr(2), .true.)
      call chkl('LAND all false', lr(3), .false.)
      call chkl('LAND one false', lr(4), .false.)
      do i = 1, 4
         lr(i) = .true.
      enddo
      call mpi_allreduce(l, lr, 4, MPI_LOGICAL, MPI_LOR,
     &     MPI_COMM_WORLD, ierr)
      call chkl('LOR one true', lr(1), .true.)
      call chkl('LOR all true', lr(2), .true.)
      call chkl('LOR all false', lr(3), .false.)
      call chkl('LOR one false', lr(4), .true.)

      verified = .true.
      allver = .false.
      call mpi_reduce(verified, allver, 1, MPI_LOGICAL, MPI_LAND, 0,
     &     MPI_COMM_WORLD, ierr)
      if (myrank .eq. 0) call chkl('reduce LAND scalar', allver,
     &     .true.)
      end

! ---------------------------------------------------------------------
! mpi_alltoall (FT's transpose, IS's bucket counts): DOUBLE COMPLEX
! blocks of 3 and single INTEGERs.
! ---------------------------------------------------------------------
      subroutine ta2a
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer maxp
      parameter (maxp = 64)
      double complex zs(3, maxp), zr(3, maxp), zexp
      integer is(maxp), ir(maxp), i, p, ierr

      if (nprocs .gt. maxp) then
         call chki('ta2a: too many processes', nprocs, maxp)
         return
      endif
      do p = 1, nprocs
         do i = 1, 3
            zs(i, p) = dcmplx(dble(1000 * myrank + 10 * (p - 1) + i),
     &           -dble(myrank))
            zr(i, p) = (0.0d0, 0.0d0)
         enddo
         is(p) = 100 * myrank + (p - 1)
         ir(p) = -1
      enddo
      call mpi_alltoall(zs, 3, MPI_DOUBLE_COMPLEX, zr, 3,
     &     MPI_DOUBLE_COMPLEX, MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'mpi_alltoall')
      call mpi_alltoall(is, 1, MPI_INTEGER, ir, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, ierr)
      do p = 1, nprocs
         do i = 1, 3
            zexp = dcmplx(dble(1000 * (p - 1) + 10 * myrank + i),
     &           -dble(p - 1))
            if (zr(i, p) .ne. zexp) then
               call chkz('alltoall DOUBLE COMPLEX', zr(i, p), zexp)
            endif
         enddo
         call chki('alltoall INTEGER', ir(p), 100 * (p - 1) + myrank)
      enddo
      end

! ---------------------------------------------------------------------
! mpi_comm_dup and mpi_comm_split: sizes and ranks of the new comms,
! traffic on the dup does not match receives on the world, bcast and
! reduce on a split comm, MPI_UNDEFINED gives MPI_COMM_NULL, and
! mpi_comm_free sets the handles to MPI_COMM_NULL.
! ---------------------------------------------------------------------
      subroutine tsplit
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer dupcomm, rowcomm, subcomm
      integer status(MPI_STATUS_SIZE), req
      integer ierr, r, s, color, key, isz, irk, iexp, v, vw, vd
      common /nbsplt/ vw
      integer iroot, isum, i
      double precision d, dsum

      call mpi_comm_dup(MPI_COMM_WORLD, dupcomm, ierr)
      call chkok(ierr, 'mpi_comm_dup')
      call mpi_comm_size(dupcomm, s, ierr)
      call mpi_comm_rank(dupcomm, r, ierr)
      call chki('dup comm size', s, nprocs)
      call chki('dup comm rank', r, myrank)

!     same tag, source and buffer type on both comms: each message
!     must arrive on its own comm
      if (myrank .eq. 0) then
         vw = 1
         vd = 2
         call mpi_send(vw, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr)
         call mpi_send(vd, 1, MPI_INTEGER, 1, 5, dupcomm, ierr)
      else if (myrank .eq. 1) then
         vw = -1
         vd = -1
         call mpi_irecv(vw, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, req,
     &        ierr)
         call mpi_recv(vd, 1, MPI_INTEGER, 0, 5, dupcomm, status, ierr)
         call mpi_wait(req, status, ierr)
         call chki('message on MPI_COMM_WORLD', vw, 1)
         call chki('message on the dup comm', vd, 2)
      endif

!     split by parity; key nprocs-rank reverses the order
      color = mod(myrank, 2)
      key = nprocs - myrank
      call mpi_comm_split(MPI_COMM_WORLD, color, key, rowcomm, ierr)
      call chkok(ierr, 'mpi_comm_split')
      call mpi_comm_size(rowcomm, isz, ierr)
      call mpi_comm_rank(rowcomm, irk, ierr)
      if (color .eq. 0) then
         iexp = (nprocs + 1) / 2
      else
         iexp = nprocs / 2
      endif
      call chki('split comm size', isz, iexp)
!     members of my colour with a larger world rank come first
      iexp = 0
      do i = myrank + 2, nprocs - 1, 2
         iexp = iexp + 1
      enddo
      call chki('split comm rank', irk, iexp)
!     sub-root 0 is the largest world rank of the colour
      iroot = nprocs - 1
      if (mod(iroot, 2) .ne. color) iroot = iroot - 1
      v = -1
      if (irk .eq. 0) v = myrank
      call mpi_bcast(v, 1, MPI_INTEGER, 0, rowcomm, ierr)
      call chkok(ierr, 'bcast on split comm')
      call chki('bcast on split comm', v, iroot)
      isum = -1
      call mpi_reduce(myrank, isum, 1, MPI_INTEGER, MPI_SUM, 0,
     &     rowcomm, ierr)
      call chkok(ierr, 'reduce on split comm')
      if (irk .eq. 0) then
         iexp = 0
         do i = color, nprocs - 1, 2
            iexp = iexp + i
         enddo
         call chki('reduce SUM on split comm', isum, iexp)
      endif
      d = dble(irk)
      dsum = -1.0d0
      call mpi_allreduce(d, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     rowcomm, ierr)
      call chkd('allreduce SUM on split comm', dsum,
     &     dble(isz * (isz - 1) / 2))

!     the last rank stays out
      color = 0
      if (myrank .eq. nprocs - 1) color = MPI_UNDEFINED
      call mpi_comm_split(dupcomm, color, myrank, subcomm, ierr)
      call chkok(ierr, 'mpi_comm_split with MPI_UNDEFINED')
      if (myrank .eq. nprocs - 1) then
         call chki('split with MPI_UNDEFINED', subcomm, MPI_COMM_NULL)
      else
         call mpi_comm_size(subcomm, isz, ierr)
         call mpi_comm_rank(subcomm, irk, ierr)
         call chki('split size without the last rank', isz,
     &        nprocs - 1)
         call chki('split rank without the last rank', irk, myrank)
         isum = 0
         v = 1
         call mpi_allreduce(v, isum, 1, MPI_INTEGER, MPI_SUM, subcomm,
     &        ierr)
         call chki('allreduce on split without the last rank', isum,
     &        nprocs - 1)
         call mpi_comm_free(subcomm, ierr)
         call chkok(ierr, 'mpi_comm_free split')
         call chki('comm after mpi_comm_free', subcomm, MPI_COMM_NULL)
      endif

      call mpi_comm_free(rowcomm, ierr)
      call chki('row comm after mpi_comm_free', rowcomm,
     &     MPI_COMM_NULL)
      call mpi_comm_free(dupcomm, ierr)
      call chkok(ierr, 'mpi_comm_free dup')
      call chki('dup comm after mpi_comm_free', dupcomm,
     &     MPI_COMM_NULL)
      end
