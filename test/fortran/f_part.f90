! SPDX-License-Identifier: MIT
!
! Partitioned communication through the Fortran bindings ("use mpi";
! the partitioned routines have choice buffers, so they are external
! there, as in MPICH's mpi module): mpi_psend_init with 4 partitions and
! mpi_precv_init with 2 (same total), counts of KIND=MPI_COUNT_KIND,
! mpi_pready, mpi_pready_range and mpi_pready_list (partitions out of
! order), mpi_parrived polled with its LOGICAL flag, restarted 5 times,
! and mpi_pready of a partition out of range giving MPI_ERR_ARG under
! MPI_ERRORS_RETURN.
!
! Ranks: 2 (rank 0 sends to rank 1; others only take part in the end).
!
program f_part
  use mpi
  use fcheck
  implicit none
  integer, parameter :: n = 4096, rounds = 5
  double precision, parameter :: maxwait = 20.0d0
  integer :: ierr, req, round, i, p, cls, list(2)
  integer :: buf(n)
  integer(kind=MPI_COUNT_KIND) :: cnt
  logical :: flag, seen(2)
  double precision :: t0

  call mpi_init(ierr)
  call chkok(ierr, 'mpi_init')
  call fcstart('f_part', 2, 2)
  if (myrank == 0) then
    cnt = n / 4
    call mpi_psend_init(buf, 4, cnt, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, &
         MPI_INFO_NULL, req, ierr)
    call chkok(ierr, 'mpi_psend_init')
    do round = 1, rounds
      do i = 1, n
        buf(i) = round * 100000 + i
      end do
      call mpi_start(req, ierr)
      call chkok(ierr, 'mpi_start (send)')
      list(1) = 3
      list(2) = 1
      call mpi_pready_list(2, list, req, ierr)
      call chkok(ierr, 'mpi_pready_list')
      call mpi_pready(2, req, ierr)
      call chkok(ierr, 'mpi_pready')
      if (round == 1) then
        call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
        call mpi_pready(4, req, ierr)
        call mpi_error_class(ierr, cls, i)
        call chki('mpi_pready(4) of 4: error class', cls, MPI_ERR_ARG)
        call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
      end if
      call mpi_pready_range(0, 0, req, ierr)
      call chkok(ierr, 'mpi_pready_range')
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      call chkok(ierr, 'mpi_wait (send)')
    end do
    call mpi_request_free(req, ierr)
  else if (myrank == 1) then
    cnt = n / 2
    call mpi_precv_init(buf, 2, cnt, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, &
         MPI_INFO_NULL, req, ierr)
    call chkok(ierr, 'mpi_precv_init')
    do round = 1, rounds
      buf = -1
      call mpi_start(req, ierr)
      call chkok(ierr, 'mpi_start (recv)')
      seen = .false.
      t0 = mpi_wtime()
      do while (.not. all(seen) .and. mpi_wtime() - t0 < maxwait)
        do p = 0, 1
          call mpi_parrived(req, p, flag, ierr)
          call chkok(ierr, 'mpi_parrived')
          if (flag) seen(p + 1) = .true.
        end do
      end do
      call chkl('all partitions arrived', all(seen), .true.)
      call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
      call chkok(ierr, 'mpi_wait (recv)')
      do i = 1, n
        if (buf(i) /= round * 100000 + i) then
          call chki('received value', buf(i), round * 100000 + i)
          exit
        end if
      end do
    end do
    call mpi_request_free(req, ierr)
  end if
  call fcfinish()
end program f_part
