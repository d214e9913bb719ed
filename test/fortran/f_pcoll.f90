! SPDX-License-Identifier: MIT
!
! MPI-4.0 persistent collectives through the Fortran bindings ("use mpi"):
! mpi_bcast_init, mpi_allreduce_init (MPI_IN_PLACE), mpi_allgather_init,
! mpi_alltoallv_init and mpi_barrier_init, each started ten times with new
! data in the same buffers (mpi_start, mpi_startall, mpi_wait, mpi_waitall)
! and freed with mpi_request_free; mpi_reduce_scatter_block_init with an
! info object. Every result is checked against values computed here.
!
! Ranks: any count >= 1.
!
program f_pcoll
  use mpi
  use fcheck
  implicit none
  integer, parameter :: nb = 4, rounds = 10
  integer :: ierr, k, i, r, info, sum0
  integer :: reqs(4), statuses(MPI_STATUS_SIZE, 4)
  integer :: bbuf(nb), abuf(nb), gsend, gbuf(64)
  integer, allocatable :: ssend(:), srecv(:), scnt(:), sdsp(:), rsb(:)
  integer :: rsr(nb)

  call mpi_init(ierr)
  call fcstart('f_pcoll', 1, 64)
  allocate(ssend(nprocs), srecv(nprocs), scnt(nprocs), sdsp(nprocs), rsb(nb * nprocs))
  do r = 1, nprocs
     scnt(r) = 1
     sdsp(r) = r - 1
  end do

  call mpi_bcast_init(bbuf, nb, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &
       reqs(1), ierr)
  call chkok(ierr, 'mpi_bcast_init')
  call mpi_allreduce_init(MPI_IN_PLACE, abuf, nb, MPI_INTEGER, MPI_SUM, &
       MPI_COMM_WORLD, MPI_INFO_NULL, reqs(2), ierr)
  call chkok(ierr, 'mpi_allreduce_init')
  call mpi_allgather_init(gsend, 1, MPI_INTEGER, gbuf, 1, MPI_INTEGER, &
       MPI_COMM_WORLD, MPI_INFO_NULL, reqs(3), ierr)
  call chkok(ierr, 'mpi_allgather_init')
  call mpi_alltoallv_init(ssend, scnt, sdsp, MPI_INTEGER, srecv, scnt, sdsp, &
       MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(4), ierr)
  call chkok(ierr, 'mpi_alltoallv_init')

  do k = 1, rounds
     do i = 1, nb
        if (myrank == 0) then
           bbuf(i) = 1000 * k + i
        else
           bbuf(i) = -1
        end if
        abuf(i) = myrank + k * i
     end do
     gsend = 10 * myrank + k
     do r = 1, nprocs
        ssend(r) = 100 * myrank + r + k
        srecv(r) = -1
     end do
     if (mod(k, 2) == 0) then
        call mpi_startall(4, reqs, ierr)
        call chkok(ierr, 'mpi_startall')
        call mpi_waitall(4, reqs, statuses, ierr)
        call chkok(ierr, 'mpi_waitall')
     else
        do i = 1, 4
           call mpi_start(reqs(i), ierr)
           call chkok(ierr, 'mpi_start')
           call mpi_wait(reqs(i), statuses(1, i), ierr)
           call chkok(ierr, 'mpi_wait')
        end do
     end if
     sum0 = 0
     do r = 0, nprocs - 1
        sum0 = sum0 + r
     end do
     do i = 1, nb
        call chki('bcast_init result', bbuf(i), 1000 * k + i)
        call chki('allreduce_init result', abuf(i), sum0 + nprocs * k * i)
     end do
     do r = 1, nprocs
        call chki('allgather_init result', gbuf(r), 10 * (r - 1) + k)
        call chki('alltoallv_init result', srecv(r), 100 * (r - 1) + myrank + 1 + k)
     end do
  end do
  do i = 1, 4
     call mpi_request_free(reqs(i), ierr)
     call chkok(ierr, 'mpi_request_free')
     call chki('request after mpi_request_free', reqs(i), MPI_REQUEST_NULL)
  end do

  ! barrier and reduce-scatter-block, with an info object
  call mpi_info_create(info, ierr)
  call mpi_info_set(info, 'michi_test_key', 'ignored', ierr)
  call mpi_barrier_init(MPI_COMM_WORLD, info, reqs(1), ierr)
  call chkok(ierr, 'mpi_barrier_init')
  call mpi_reduce_scatter_block_init(rsb, rsr, nb, MPI_INTEGER, MPI_SUM, &
       MPI_COMM_WORLD, info, reqs(2), ierr)
  call chkok(ierr, 'mpi_reduce_scatter_block_init')
  call mpi_info_free(info, ierr)
  do k = 1, rounds
     do i = 1, nb * nprocs
        rsb(i) = i + k
     end do
     call mpi_startall(2, reqs, ierr)
     call mpi_waitall(2, reqs, statuses, ierr)
     call chkok(ierr, 'mpi_waitall (barrier, reduce_scatter_block)')
     do i = 1, nb
        call chki('reduce_scatter_block_init result', rsr(i), &
             nprocs * (myrank * nb + i + k))
     end do
  end do
  call mpi_request_free(reqs(1), ierr)
  call mpi_request_free(reqs(2), ierr)
  deallocate(ssend, srecv, scnt, sdsp, rsb)
  call fcfinish()
end program f_pcoll
