! SPDX-License-Identifier: MIT
!
! The harness the Fortran tests share, compiled first in the same
! mpifort command as each of them (test/mpi/run-testlist does so):
!
!   mpifort -fallow-argument-mismatch -o NAME fcheck.f90 NAME.f
!
! What a program calls are external subroutines, so that the fixed-form
! F77-style programs call them with implicit interfaces; module fcheck
! gives the free-form programs explicit interfaces to the same
! subroutines. The start (fcstart, after mpi_init) sets myrank and
! nprocs, checks the library (chklib) and the rank count. The checks
! (chkok, chki, chka, chkd, chkz, chkl, chks) each compare one value and
! hand a failure to fcfail, which counts it and prints
! 'rank R: error: WHAT' and '   got X expected Y' (the first 20 per
! rank). The end (fcfinish) sums the counts over MPI_COMM_WORLD and calls
! mpi_finalize; rank 0 prints ' No Errors' or ' Found N errors', and
! with errors every rank stops with exit status 1.
!
! The state is in the common block /ferrs/ (the error count, the rank
! and the size of MPI_COMM_WORLD), which the F77-style programs declare
! themselves as
!
!       integer nerr, myrank, nprocs
!       common /ferrs/ nerr, myrank, nprocs
!
! and which module fcheck holds too, with what the library check found.
!
module fcheck
  implicit none
  integer :: nerr, myrank, nprocs
  common /ferrs/ nerr, myrank, nprocs
  ! set by chklib: .true. when the library names itself Michi (known
  ! bugs of other libraries, MPICH 4.0, are tolerated only when it does
  ! not), and when MTEST_EXPECT_LIBRARY is set (an ABI run: the library
  ! may be another implementation than the one whose mpif.h or mpi
  ! module the program was built with)
  logical :: on_michi = .false., abi_run = .false.

  interface
    ! After mpi_init (or mpi_init_thread): myrank and nprocs, chklib, and
    ! an abort unless the program (name) has minp to maxp processes.
    subroutine fcstart(name, minp, maxp)
      character(len=*), intent(in) :: name
      integer, intent(in) :: minp, maxp
    end subroutine fcstart

    ! The end: fcsum, mpi_finalize, fcreport.
    subroutine fcfinish()
    end subroutine fcfinish

    ! toterr = the sum of the error counts of all ranks.
    subroutine fcsum(toterr)
      integer, intent(out) :: toterr
    end subroutine fcsum

    ! ' No Errors' or ' Found toterr errors' from rank 0; stop 1 on
    ! every rank with errors.
    subroutine fcreport(toterr)
      integer, intent(in) :: toterr
    end subroutine fcreport

    ! mpi_get_library_version names MTEST_EXPECT_LIBRARY, when set.
    subroutine chklib()
    end subroutine chklib

    ! The checks: what names the check; got must be expect (ierr must
    ! be MPI_SUCCESS).
    subroutine chkok(ierr, what)
      integer, intent(in) :: ierr
      character(len=*), intent(in) :: what
    end subroutine chkok

    subroutine chki(what, got, expect)
      character(len=*), intent(in) :: what
      integer, intent(in) :: got, expect
    end subroutine chki

    subroutine chkl(what, got, expect)
      character(len=*), intent(in) :: what
      logical, intent(in) :: got, expect
    end subroutine chkl

    subroutine chks(what, got, expect)
      character(len=*), intent(in) :: what, got, expect
    end subroutine chks

    subroutine chkd(what, got, expect)
      character(len=*), intent(in) :: what
      double precision, intent(in) :: got, expect
    end subroutine chkd

    subroutine chkz(what, got, expect)
      character(len=*), intent(in) :: what
      double complex, intent(in) :: got, expect
    end subroutine chkz

    subroutine chka(what, got, expect)
      use mpi, only: MPI_ADDRESS_KIND
      character(len=*), intent(in) :: what
      integer(kind=MPI_ADDRESS_KIND), intent(in) :: got, expect
    end subroutine chka
  end interface

contains

  ! One failed check (what): counts it and, for the first 20 on this
  ! rank, prints it with the values it got and expected.
  subroutine fcfail(what, got, expect)
    character(len=*), intent(in) :: what
    class(*), intent(in) :: got, expect
    nerr = nerr + 1
    if (nerr > 20) return
    write(*, '(A,I0,2A)') 'rank ', myrank, ': error: ', what
    write(*, '(4A)') '   got ', fcstr(got), ' expected ', fcstr(expect)
  end subroutine fcfail

  ! A value of one of the types the checks take, for fcfail.
  function fcstr(v) result(s)
    use iso_fortran_env, only: int64
    class(*), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=100) :: buf
    select type (v)
    type is (integer)
      write(buf, '(I0)') v
    type is (integer(int64))
      write(buf, '(I0)') v
    type is (logical)
      write(buf, '(L1)') v
    type is (double precision)
      write(buf, '(G0)') v
    type is (complex(kind(0.0d0)))
      write(buf, '("(",G0,", ",G0,")")') v
    type is (character(len=*))
      buf = '"' // v // '"'
    class default
      buf = '(unknown type)'
    end select
    s = trim(buf)
  end function fcstr
end module fcheck

! Before mpi_init nothing has failed and the rank is not known yet.
block data fcheck_init
  implicit none
  integer :: nerr, myrank, nprocs
  common /ferrs/ nerr, myrank, nprocs
  data nerr, myrank, nprocs / 0, -1, 0 /
end block data fcheck_init

subroutine fcstart(name, minp, maxp)
  use mpi
  use fcheck, only: myrank, nprocs, chkok, chklib
  implicit none
  character(len=*), intent(in) :: name
  integer, intent(in) :: minp, maxp
  integer :: ierr

  call mpi_comm_rank(MPI_COMM_WORLD, myrank, ierr)
  call chkok(ierr, 'mpi_comm_rank')
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call chkok(ierr, 'mpi_comm_size')
  call chklib()
  if (nprocs < minp .or. nprocs > maxp) then
    if (maxp == huge(maxp)) then
      write(*, '(2A,I0,A)') name, ' needs at least ', minp, ' processes'
    else
      write(*, '(2A,I0,A,I0,A)') name, ' needs ', minp, ' to ', maxp, &
           ' processes'
    end if
    call mpi_abort(MPI_COMM_WORLD, 1, ierr)
  end if
end subroutine fcstart

subroutine fcfinish()
  use mpi
  use fcheck, only: fcsum, fcreport
  implicit none
  integer :: toterr, ierr

  call fcsum(toterr)
  call mpi_finalize(ierr)
  call fcreport(toterr)
end subroutine fcfinish

subroutine fcsum(toterr)
  use mpi
  use fcheck, only: nerr
  implicit none
  integer, intent(out) :: toterr
  integer :: ierr

  toterr = -1
  call mpi_allreduce(nerr, toterr, 1, MPI_INTEGER, MPI_SUM, &
       MPI_COMM_WORLD, ierr)
end subroutine fcsum

subroutine fcreport(toterr)
  use fcheck, only: myrank
  implicit none
  integer, intent(in) :: toterr

  if (myrank == 0) then
    if (toterr == 0) then
      write(*, '(A)') ' No Errors'
    else
      write(*, '(A,I0,A)') ' Found ', toterr, ' errors'
    end if
  end if
  if (toterr /= 0) stop 1
end subroutine fcreport

! As test/mpi/mtest.h does for the C tests. The version string must be
! nonblank; whether it names Michi goes to on_michi.
subroutine chklib()
  use mpi
  use fcheck, only: on_michi, abi_run, chkok, chkl, chks
  implicit none
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: v
  character(len=64) :: want
  integer :: l, l1, ierr, wl, st

  v = ' '
  l = 0
  call mpi_get_library_version(v, l, ierr)
  call chkok(ierr, 'mpi_get_library_version')
  call chkl('library version string nonblank', l > 0 .and. &
       len_trim(v) > 0, .true.)
  l = max(1, min(l, len(v)))
  ! the first line only, for messages
  l1 = index(v(1:l), achar(10)) - 1
  if (l1 <= 0) l1 = l
  on_michi = index(v(1:l), 'Michi') > 0
  call get_environment_variable('MTEST_EXPECT_LIBRARY', want, wl, st)
  abi_run = st == 0 .and. wl > 0
  if (abi_run) then
    if (index(v(1:l), want(1:wl)) == 0) &
         call chks('library version names MTEST_EXPECT_LIBRARY', &
         v(1:min(l1, 80)), want(1:wl))
  end if
end subroutine chklib

subroutine chkok(ierr, what)
  use mpi, only: MPI_SUCCESS
  use fcheck, only: fcfail
  implicit none
  integer, intent(in) :: ierr
  character(len=*), intent(in) :: what
  if (ierr /= MPI_SUCCESS) call fcfail(what // ' ierr', ierr, MPI_SUCCESS)
end subroutine chkok

subroutine chki(what, got, expect)
  use fcheck, only: fcfail
  implicit none
  character(len=*), intent(in) :: what
  integer, intent(in) :: got, expect
  if (got /= expect) call fcfail(what, got, expect)
end subroutine chki

subroutine chkl(what, got, expect)
  use fcheck, only: fcfail
  implicit none
  character(len=*), intent(in) :: what
  logical, intent(in) :: got, expect
  if (got .neqv. expect) call fcfail(what, got, expect)
end subroutine chkl

! Trailing blanks do not count, as in any comparison of strings.
subroutine chks(what, got, expect)
  use fcheck, only: fcfail
  implicit none
  character(len=*), intent(in) :: what, got, expect
  if (got /= expect) call fcfail(what, got, expect)
end subroutine chks

! Floating-point values are compared exactly, as the tests expect.
subroutine chkd(what, got, expect)
  use fcheck, only: fcfail
  implicit none
  character(len=*), intent(in) :: what
  double precision, intent(in) :: got, expect
  if (got /= expect) call fcfail(what, got, expect)
end subroutine chkd

subroutine chkz(what, got, expect)
  use fcheck, only: fcfail
  implicit none
  character(len=*), intent(in) :: what
  double complex, intent(in) :: got, expect
  if (got /= expect) call fcfail(what, got, expect)
end subroutine chkz

! for values of kind MPI_ADDRESS_KIND
subroutine chka(what, got, expect)
  use mpi, only: MPI_ADDRESS_KIND
  use fcheck, only: fcfail
  implicit none
  character(len=*), intent(in) :: what
  integer(kind=MPI_ADDRESS_KIND), intent(in) :: got, expect
  if (got /= expect) call fcfail(what, got, expect)
end subroutine chka
