! SPDX-License-Identifier: MIT
!
! The MPI-4.0 large-count forms through the Fortran 2008 bindings ("use
! mpi_f08"): the generic names with INTEGER(KIND=MPI_COUNT_KIND) counts
! and INTEGER(KIND=MPI_ADDRESS_KIND) displacements, which call the C
! MPI_X_c functions (MPI-4.0 section 19.2), next to the same calls with
! default INTEGER counts.
!
! Covered: send/recv with a count of kind MPI_COUNT_KIND and get_count,
! get_elements with a count-kind result (also a partial element of a
! derived type); isend/irecv + waitall and sendrecv with count-kind
! counts; bcast, allreduce and reduce; allgatherv and alltoallv with
! count-kind counts and address-kind displacements, with gaps between
! the blocks that must stay untouched; iallreduce + wait; the persistent
! allreduce_init + start/wait, three rounds; type_contiguous with a
! count-kind count of 3e9 bytes (type_size and, by its specific name,
! type_get_extent_c give 3e9, which no default INTEGER holds) and of 5
! INTEGERs sent and received as one element; type_vector with count-kind
! arguments; a user op from MPI_Op_create_c whose len is an
! INTEGER(KIND=MPI_COUNT_KIND); the int forms of send, bcast and
! get_count in the same program.
!
! Ranks: any count >= 2 (pairs (0,1), (2,3), ...; with an odd count the
! last rank only joins the whole-world parts).
!
module f08_large_ops
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  implicit none
  integer :: ncalls = 0

contains

  ! An elementwise INTEGER maximum with the large-count user function
  ! signature: len is an INTEGER(KIND=MPI_COUNT_KIND).
  subroutine bigmax(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)

    ncalls = ncalls + 1
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, (/ len /))
    call c_f_pointer(inoutvec, b, (/ len /))
    b = max(a, b)
  end subroutine bigmax
end module f08_large_ops

program f08_large
  use mpi_f08
  use fcheck
  use f08_large_ops
  implicit none
  integer :: ierr, partner

  ierr = -1
  call MPI_Init(ierr)
  call chkok(ierr, 'MPI_Init')
  call fcstart('f08_large', 2, huge(nprocs))
  partner = ieor(myrank, 1)
  if (partner >= nprocs) partner = MPI_PROC_NULL

  if (partner /= MPI_PROC_NULL) then
    call t_sendrecv(partner)
    call t_nonblocking(partner)
    call t_types(partner)
  end if
  call t_types_local()
  call t_coll()
  call t_vcoll()
  call t_persistent()
  call t_userop()
  call fcfinish()

contains

  ! send/recv, get_count and get_elements with count-kind counts; the int
  ! forms alongside
  subroutine t_sendrecv(partner)
    integer, intent(in) :: partner
    integer, parameter :: n = 100
    integer :: buf(n), i, icount
    integer(kind=MPI_COUNT_KIND) :: cnt, got
    type(MPI_Status) :: st

    cnt = n
    if (myrank < partner) then
      do i = 1, n
        buf(i) = 7 * i + myrank
      end do
      call MPI_Send(buf, cnt, MPI_INTEGER, partner, 11, MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'MPI_Send (count kind)')
      call MPI_Send(buf, 30, MPI_INTEGER, partner, 12, MPI_COMM_WORLD, ierr)
      call chkok(ierr, 'MPI_Send (default integer)')
    else
      buf = -1
      call MPI_Recv(buf, cnt, MPI_INTEGER, partner, 11, MPI_COMM_WORLD, st, ierr)
      call chkok(ierr, 'MPI_Recv (count kind)')
      call chki('recv status%MPI_SOURCE', st%MPI_SOURCE, partner)
      call chki('recv status%MPI_TAG', st%MPI_TAG, 11)
      do i = 1, n
        call chki('recv (count kind) buf(i)', buf(i), 7 * i + partner)
      end do
      got = -1
      call MPI_Get_count(st, MPI_INTEGER, got, ierr)
      call chkok(ierr, 'MPI_Get_count (count kind)')
      call chka('get_count (count kind)', got, int(n, MPI_ADDRESS_KIND))
      got = -1
      call MPI_Get_elements(st, MPI_INTEGER, got)
      call chka('get_elements (count kind)', got, int(n, MPI_ADDRESS_KIND))
      buf = -1
      call MPI_Recv(buf, cnt, MPI_INTEGER, partner, 12, MPI_COMM_WORLD, st)
      icount = -1
      call MPI_Get_count(st, MPI_INTEGER, icount, ierr)
      call chkok(ierr, 'MPI_Get_count (default integer)')
      call chki('get_count (default integer)', icount, 30)
      got = -1
      call MPI_Get_count(st, MPI_INTEGER, got)
      call chka('get_count (count kind) of 30', got, 30_MPI_ADDRESS_KIND)
      call chki('recv of 30: buf(30)', buf(30), 7 * 30 + partner)
      call chki('recv of 30: buf(31) untouched', buf(31), -1)
    end if
  end subroutine t_sendrecv

  ! isend/irecv + waitall, sendrecv, with count-kind counts
  subroutine t_nonblocking(partner)
    integer, intent(in) :: partner
    integer, parameter :: n = 2000
    integer, asynchronous :: s(n), r(n)
    integer :: i, a(3), b(3)
    integer(kind=MPI_COUNT_KIND) :: cnt, three
    type(MPI_Request) :: reqs(2)
    type(MPI_Status) :: sts(2), st

    cnt = n
    do i = 1, n
      s(i) = myrank * 100000 + i
    end do
    r = -1
    call MPI_Irecv(r, cnt, MPI_INTEGER, partner, 21, MPI_COMM_WORLD, reqs(1), ierr)
    call chkok(ierr, 'MPI_Irecv (count kind)')
    call MPI_Isend(s, cnt, MPI_INTEGER, partner, 21, MPI_COMM_WORLD, reqs(2), ierr)
    call chkok(ierr, 'MPI_Isend (count kind)')
    call MPI_Waitall(2, reqs, sts, ierr)
    call chkok(ierr, 'MPI_Waitall')
    do i = 1, n, 97
      call chki('irecv (count kind) r(i)', r(i), partner * 100000 + i)
    end do
    call chki('irecv (count kind) r(n)', r(n), partner * 100000 + n)
    three = 3
    a = (/ myrank, myrank + 1, myrank + 2 /)
    b = -1
    call MPI_Sendrecv(a, three, MPI_INTEGER, partner, 22, b, three, MPI_INTEGER, &
         partner, 22, MPI_COMM_WORLD, st, ierr)
    call chkok(ierr, 'MPI_Sendrecv (count kind)')
    do i = 1, 3
      call chki('sendrecv (count kind) b(i)', b(i), partner + i - 1)
    end do
  end subroutine t_nonblocking

  ! type_contiguous and type_vector with count-kind arguments, sent
  ! between the pair; get_elements of a partial element
  subroutine t_types(partner)
    integer, intent(in) :: partner
    type(MPI_Datatype) :: five, vec
    integer :: buf(20), i
    integer(kind=MPI_COUNT_KIND) :: cnt, one, two, elems, sz
    type(MPI_Status) :: st

    cnt = 5
    call MPI_Type_contiguous(cnt, MPI_INTEGER, five, ierr)
    call chkok(ierr, 'MPI_Type_contiguous (count kind)')
    call MPI_Type_commit(five, ierr)
    call MPI_Type_size(five, sz, ierr)
    call chkok(ierr, 'MPI_Type_size (count kind)')
    call chka('type_size of 5 INTEGERs', sz, 20_MPI_ADDRESS_KIND)
    ! every other INTEGER, 4 blocks of 1
    two = 2
    one = 1
    call MPI_Type_vector(4_MPI_COUNT_KIND, one, two, MPI_INTEGER, vec, ierr)
    call chkok(ierr, 'MPI_Type_vector (count kind)')
    call MPI_Type_commit(vec, ierr)
    if (myrank < partner) then
      do i = 1, 20
        buf(i) = 1000 * myrank + i
      end do
      call MPI_Send(buf, one, five, partner, 31, MPI_COMM_WORLD)
      call MPI_Send(buf, one, vec, partner, 32, MPI_COMM_WORLD)
      ! 3 INTEGERs: a partial element of `five`
      call MPI_Send(buf, 3_MPI_COUNT_KIND, MPI_INTEGER, partner, 33, MPI_COMM_WORLD)
    else
      buf = -1
      call MPI_Recv(buf, one, five, partner, 31, MPI_COMM_WORLD, st)
      do i = 1, 5
        call chki('recv of type_contiguous(5) buf(i)', buf(i), 1000 * partner + i)
      end do
      call chki('recv of type_contiguous(5) buf(6) untouched', buf(6), -1)
      elems = -1
      call MPI_Get_elements(st, five, elems)
      call chka('get_elements (count kind) of one contiguous(5)', elems, 5_MPI_ADDRESS_KIND)
      buf = -1
      call MPI_Recv(buf, one, vec, partner, 32, MPI_COMM_WORLD, st)
      do i = 1, 7, 2
        call chki('recv of type_vector buf(i)', buf(i), 1000 * partner + i)
        call chki('recv of type_vector gap untouched', buf(i + 1), -1)
      end do
      buf = -1
      call MPI_Recv(buf, two, five, partner, 33, MPI_COMM_WORLD, st)
      elems = -1
      call MPI_Get_elements(st, five, elems)
      call chka('get_elements (count kind) of a partial element', elems, 3_MPI_ADDRESS_KIND)
      elems = -1
      call MPI_Get_count(st, five, elems)
      call chka('get_count (count kind) of a partial element', elems, &
           int(MPI_UNDEFINED, MPI_ADDRESS_KIND))
    end if
    call MPI_Type_free(five)
    call MPI_Type_free(vec)
  end subroutine t_types

  ! a datatype of 3e9 bytes: its size and extent need the count kind
  subroutine t_types_local()
    type(MPI_Datatype) :: big
    integer(kind=MPI_COUNT_KIND), parameter :: nbytes = 3000000000_MPI_COUNT_KIND
    integer(kind=MPI_COUNT_KIND) :: sz, lb, extent
    integer :: isz

    call MPI_Type_contiguous(nbytes, MPI_BYTE, big, ierr)
    call chkok(ierr, 'MPI_Type_contiguous (3e9 bytes)')
    call MPI_Type_commit(big, ierr)
    sz = -1
    call MPI_Type_size(big, sz, ierr)
    call chkok(ierr, 'MPI_Type_size (count kind) of 3e9 bytes')
    call chka('type_size (count kind) of 3e9 bytes', sz, int(nbytes, MPI_ADDRESS_KIND))
    lb = -1
    extent = -1
    call MPI_Type_get_extent_c(big, lb, extent, ierr)
    call chkok(ierr, 'MPI_Type_get_extent_c')
    call chka('type_get_extent_c lb', lb, 0_MPI_ADDRESS_KIND)
    call chka('type_get_extent_c extent', extent, int(nbytes, MPI_ADDRESS_KIND))
    ! the int form cannot hold it: MPI_UNDEFINED (MPI-3.1 4.1.5)
    isz = 0
    call MPI_Type_size(big, isz, ierr)
    call chkok(ierr, 'MPI_Type_size (default integer) of 3e9 bytes')
    call chki('type_size (default integer) of 3e9 bytes', isz, MPI_UNDEFINED)
    call MPI_Type_free(big)
  end subroutine t_types_local

  ! bcast, allreduce, reduce, iallreduce with count-kind counts; bcast
  ! with a default INTEGER count
  subroutine t_coll()
    integer :: b(4), s(3), r(3), i, n
    integer(kind=MPI_COUNT_KIND) :: four, three
    type(MPI_Request) :: req
    integer, asynchronous :: as(3), ar(3)

    n = nprocs
    four = 4
    three = 3
    b = -1
    if (myrank == n - 1) b = (/ 5, 6, 7, 8 /)
    call MPI_Bcast(b, four, MPI_INTEGER, n - 1, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Bcast (count kind)')
    do i = 1, 4
      call chki('bcast (count kind) b(i)', b(i), 4 + i)
    end do
    b = -1
    if (myrank == 0) b = (/ 1, 2, 3, 4 /)
    call MPI_Bcast(b, 2, MPI_INTEGER, 0, MPI_COMM_WORLD)
    call chki('bcast (default integer) b(2)', b(2), 2)
    call chki('bcast (default integer) b(3) untouched', b(3), merge(3, -1, myrank == 0))
    do i = 1, 3
      s(i) = myrank * i
    end do
    r = -1
    call MPI_Allreduce(s, r, three, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Allreduce (count kind)')
    do i = 1, 3
      call chki('allreduce (count kind) r(i)', r(i), i * n * (n - 1) / 2)
    end do
    r = -1
    call MPI_Reduce(s, r, three, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Reduce (count kind)')
    if (myrank == 0) then
      do i = 1, 3
        call chki('reduce max (count kind) r(i)', r(i), (n - 1) * i)
      end do
    end if
    as = (/ 1, myrank, -myrank /)
    ar = -1
    call MPI_Iallreduce(as, ar, three, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
    call chkok(ierr, 'MPI_Iallreduce (count kind)')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call chki('iallreduce (count kind) ar(1)', ar(1), n)
    call chki('iallreduce (count kind) ar(2)', ar(2), n * (n - 1) / 2)
    call chki('iallreduce (count kind) ar(3)', ar(3), -n * (n - 1) / 2)
  end subroutine t_coll

  ! allgatherv and alltoallv: rank r contributes r+1 values; blocks are
  ! placed with a gap of 2 between them, which must stay -1
  subroutine t_vcoll()
    integer :: n, i, j, k
    integer(kind=MPI_COUNT_KIND), allocatable :: rcounts(:), scounts(:)
    integer(kind=MPI_ADDRESS_KIND), allocatable :: rdispls(:), sdispls(:)
    integer, allocatable :: sbuf(:), rbuf(:)
    integer(kind=MPI_COUNT_KIND) :: mine

    n = nprocs
    allocate(rcounts(n), rdispls(n), scounts(n), sdispls(n))
    do i = 1, n
      rcounts(i) = i
    end do
    rdispls(1) = 0
    do i = 2, n
      rdispls(i) = rdispls(i - 1) + rcounts(i - 1) + 2
    end do
    allocate(rbuf(rdispls(n) + rcounts(n) + 2), sbuf(n * (n + 1)))
    mine = myrank + 1
    do j = 1, myrank + 1
      sbuf(j) = 100 * myrank + j
    end do
    rbuf = -1
    call MPI_Allgatherv(sbuf, mine, MPI_INTEGER, rbuf, rcounts, rdispls, &
         MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Allgatherv (count kind, address kind)')
    do i = 1, n
      do j = 1, i
        call chki('allgatherv (count kind) block value', &
             rbuf(rdispls(i) + j), 100 * (i - 1) + j)
      end do
      call chki('allgatherv (count kind) gap untouched', rbuf(rdispls(i) + i + 1), -1)
    end do
    ! alltoallv: to rank d, (myrank + d) mod 3 + 1 values; from rank s,
    ! (s + myrank) mod 3 + 1
    k = 0
    do i = 1, n
      scounts(i) = mod(myrank + i - 1, 3) + 1
      sdispls(i) = k
      do j = 1, int(scounts(i))
        sbuf(k + j) = 10000 * myrank + 100 * (i - 1) + j
      end do
      k = k + int(scounts(i)) + 1
    end do
    k = 0
    do i = 1, n
      rcounts(i) = mod(i - 1 + myrank, 3) + 1
      rdispls(i) = k
      k = k + int(rcounts(i)) + 2
    end do
    deallocate(rbuf)
    allocate(rbuf(k))
    rbuf = -1
    call MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INTEGER, rbuf, rcounts, &
         rdispls, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Alltoallv (count kind, address kind)')
    do i = 1, n
      do j = 1, int(rcounts(i))
        call chki('alltoallv (count kind) value', rbuf(rdispls(i) + j), &
             10000 * (i - 1) + 100 * myrank + j)
      end do
      call chki('alltoallv (count kind) gap untouched', &
           rbuf(rdispls(i) + rcounts(i) + 1), -1)
    end do
  end subroutine t_vcoll

  ! the persistent allreduce with a count-kind count, three rounds
  subroutine t_persistent()
    integer, asynchronous :: s(5), r(5)
    integer :: round, i, n
    type(MPI_Request) :: req

    n = nprocs
    call MPI_Allreduce_init(s, r, 5_MPI_COUNT_KIND, MPI_INTEGER, MPI_SUM, &
         MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call chkok(ierr, 'MPI_Allreduce_init (count kind)')
    do round = 1, 3
      do i = 1, 5
        s(i) = round * (myrank + i)
      end do
      r = -1
      call MPI_Start(req, ierr)
      call chkok(ierr, 'MPI_Start')
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      do i = 1, 5
        call chki('allreduce_init (count kind) r(i)', r(i), &
             round * (n * (n - 1) / 2 + n * i))
      end do
    end do
    call MPI_Request_free(req)
    call chkl('request_free: MPI_REQUEST_NULL', req == MPI_REQUEST_NULL, .true.)
  end subroutine t_persistent

  ! a user op from MPI_Op_create_c (len of kind MPI_COUNT_KIND)
  subroutine t_userop()
    type(MPI_Op) :: op
    integer :: v(4), r(4), i, n, total

    n = nprocs
    call MPI_Op_create_c(bigmax, .true., op, ierr)
    call chkok(ierr, 'MPI_Op_create_c')
    do i = 1, 4
      v(i) = mod(myrank * 7 + i * 3, 11)
    end do
    r = -1
    call MPI_Allreduce(v, r, 4_MPI_COUNT_KIND, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Allreduce (MPI_Op_create_c op)')
    do i = 1, 4
      call chki('allreduce with the MPI_Op_create_c op r(i)', r(i), expect_max(i))
    end do
    call MPI_Allreduce(ncalls, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call chkl('the MPI_Op_create_c function ran', total > 0, .true.)
    call MPI_Op_free(op)
    call chkl('op_free: MPI_OP_NULL', op == MPI_OP_NULL, .true.)
  end subroutine t_userop

  integer function expect_max(i)
    integer, intent(in) :: i
    integer :: p
    expect_max = -1
    do p = 0, nprocs - 1
      expect_max = max(expect_max, mod(p * 7 + i * 3, 11))
    end do
  end function expect_max
end program f08_large
