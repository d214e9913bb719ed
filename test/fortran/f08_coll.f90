! SPDX-License-Identifier: MIT
!
! Collectives, communicators, groups, topologies, datatypes, names, info
! and attributes through the Fortran 2008 bindings ("use mpi_f08").
!
! Covered: bcast (INTEGER, DOUBLE PRECISION, CHARACTER, LOGICAL);
! reduce/allreduce (SUM, MAX, LAND, MINLOC with MPI_2INTEGER, and
! MPI_IN_PLACE in both); gather, gatherv, scatter, scatterv, allgather,
! allgatherv, alltoall, alltoallv; scan and exscan; user ops from
! MPI_Op_create whose functions have the mpi_f08 signature (invec and
! inoutvec TYPE(C_PTR), VALUE, read through c_f_pointer; the datatype a
! TYPE(MPI_Datatype)): a commutative one that handles two datatypes, and
! a non-commutative one that shows the operand order in reduce and scan,
! then op_free (MPI_OP_NULL); iallreduce and ibcast with wait/waitall;
! comm_split/dup/compare (IDENT, CONGRUENT, SIMILAR, UNEQUAL)/free; the
! group calls (comm_group, size, rank, incl, translate_ranks, compare,
! MPI_GROUP_EMPTY, comm_create, group_free); dims_create,
! cart_create/get/coords/rank/shift with LOGICAL periods, cartdim_get,
! topo_test; type_vector, type_create_struct with INTEGER(KIND=
! MPI_ADDRESS_KIND) displacements from MPI_Get_address (a BIND(C) derived
! type), type_create_resized, type_size, type_get_extent, commit, free
! (MPI_DATATYPE_NULL); comm_set_name/get_name (length, blank padding);
! info create/set/get/get_valuelen/get_nkeys/get_nthkey/delete/dup/free;
! comm_get_attr(MPI_TAG_UB) with an INTEGER(KIND=MPI_ADDRESS_KIND) value
! and a LOGICAL flag.
!
! The checks, the start and the end are those of fcheck.f90 (module
! fcheck, whose subroutines take plain INTEGERs: a handle goes there as
! handle%MPI_VAL).
!
! Ranks: any count >= 2 (validated at 2, 3, 4 and 5).
!
module f08_coll_ops
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  implicit none
  ! calls of the user functions on this rank, and calls with a datatype
  ! the function does not expect
  integer :: ncalls = 0, nbadtype = 0

contains

  ! A commutative op for two datatypes: the sum of INTEGERs, the
  ! maximum of DOUBLE PRECISIONs.
  subroutine sum_or_max(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: ia(:), ib(:)
    double precision, pointer :: da(:), db(:)

    ncalls = ncalls + 1
    if (datatype == MPI_INTEGER) then
      call c_f_pointer(invec, ia, (/ len /))
      call c_f_pointer(inoutvec, ib, (/ len /))
      ib = ia + ib
    else if (datatype == MPI_DOUBLE_PRECISION) then
      call c_f_pointer(invec, da, (/ len /))
      call c_f_pointer(inoutvec, db, (/ len /))
      db = max(da, db)
    else
      nbadtype = nbadtype + 1
    end if
  end subroutine sum_or_max

  ! A non-commutative (associative) op on pairs of INTEGERs: the affine
  ! maps x -> a*x + b modulo the prime 9973 as (a, b). MPI computes
  ! inoutvec = invec op inoutvec, with invec from the lower ranks, and
  ! (a1,b1) op (a2,b2) = (a1*a2, a2*b1 + b2) applies map 1 first: the
  ! result over ranks 0..n-1 applies rank 0's map first.
  subroutine compose(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: p(:), q(:)
    integer :: i, a, b

    ncalls = ncalls + 1
    if (datatype /= MPI_2INTEGER) then
      nbadtype = nbadtype + 1
      return
    end if
    call c_f_pointer(invec, p, (/ 2 * len /))
    call c_f_pointer(inoutvec, q, (/ 2 * len /))
    do i = 1, len
      a = mod(p(2 * i - 1) * q(2 * i - 1), 9973)
      b = mod(q(2 * i - 1) * p(2 * i) + q(2 * i), 9973)
      q(2 * i - 1) = a
      q(2 * i) = b
    end do
  end subroutine compose
end module f08_coll_ops

program f08_coll
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  use mpi_f08
  use fcheck
  use f08_coll_ops
  implicit none
  integer :: ierr

  ierr = -1
  call MPI_Init(ierr)
  call chkok(ierr, 'MPI_Init')
  call fcstart('f08_coll', 2, huge(nprocs))

  call t_bcast()
  call t_reduce()
  call t_gather()
  call t_alltoall()
  call t_scan()
  call t_userop()
  call t_nonblocking()
  call t_comms()
  call t_groups()
  call t_cart()
  call t_vector()
  call t_struct()
  call t_names()
  call t_info()
  call t_attr()
  call fcfinish()

contains

  ! bcast from the last rank: INTEGER array, DOUBLE PRECISION scalar,
  ! CHARACTER string (MPI_CHARACTER), LOGICAL array.
  subroutine t_bcast()
    integer :: a(10), i, root
    double precision :: d
    character(len=16) :: s
    logical :: l(3)

    root = nprocs - 1
    if (myrank == root) then
      do i = 1, 10
        a(i) = 3 * i - 7
      end do
      d = 2.5d0
      s = 'hello, mpi_f08'
      l = (/ .true., .false., .true. /)
    else
      a = 0
      d = 0.0d0
      s = ' '
      l = .false.
    end if
    call MPI_Bcast(a, 10, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Bcast')
    do i = 1, 10
      call chki('bcast integers', a(i), 3 * i - 7)
    end do
    call MPI_Bcast(d, 1, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD)
    call chkd('bcast double scalar', d, 2.5d0)
    call MPI_Bcast(s, len(s), MPI_CHARACTER, root, MPI_COMM_WORLD)
    call chks('bcast string', s, 'hello, mpi_f08')
    call MPI_Bcast(l, 3, MPI_LOGICAL, root, MPI_COMM_WORLD)
    call chkl('bcast logical l(1)', l(1), .true.)
    call chkl('bcast logical l(2)', l(2), .false.)
    call chkl('bcast logical l(3)', l(3), .true.)
  end subroutine t_bcast

  ! reduce and allreduce; MPI_IN_PLACE at the root of reduce and in
  ! allreduce; LAND on LOGICALs; MINLOC on MPI_2INTEGER pairs.
  subroutine t_reduce()
    integer :: s(4), r(4), i, n, total, pair(2), res(2), root
    double precision :: d, dmax
    logical :: l, lall

    n = nprocs
    total = n * (n - 1) / 2
    do i = 1, 4
      s(i) = myrank + i
    end do
    r = -1
    call MPI_Reduce(s, r, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Reduce')
    if (myrank == 0) then
      do i = 1, 4
        call chki('reduce SUM', r(i), total + n * i)
      end do
    end if

    d = dble(myrank) * 1.5d0
    dmax = -1.0d0
    call MPI_Allreduce(d, dmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, &
         MPI_COMM_WORLD)
    call chkd('allreduce MAX', dmax, dble(n - 1) * 1.5d0)

    ! MPI_IN_PLACE in allreduce
    do i = 1, 4
      r(i) = myrank * i
    end do
    call MPI_Allreduce(MPI_IN_PLACE, r, 4, MPI_INTEGER, MPI_SUM, &
         MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Allreduce (MPI_IN_PLACE)')
    do i = 1, 4
      call chki('allreduce MPI_IN_PLACE', r(i), total * i)
    end do

    ! MPI_IN_PLACE at the root (rank 1) of reduce
    root = 1
    do i = 1, 4
      s(i) = 10 * myrank + i
    end do
    if (myrank == root) then
      r = s
      call MPI_Reduce(MPI_IN_PLACE, r, 4, MPI_INTEGER, MPI_MAX, root, &
           MPI_COMM_WORLD)
      do i = 1, 4
        call chki('reduce MPI_IN_PLACE MAX at the root', r(i), &
             10 * (n - 1) + i)
      end do
    else
      call MPI_Reduce(s, r, 4, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD)
    end if

    l = myrank >= 0
    lall = .false.
    call MPI_Allreduce(l, lall, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    call chkl('allreduce LAND (all true)', lall, .true.)
    l = myrank /= n - 1
    call MPI_Allreduce(l, lall, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    call chkl('allreduce LAND (one false)', lall, .false.)

    ! MINLOC: the smallest value is 5, on the last rank and on rank 0;
    ! the lower rank wins the tie
    pair(1) = merge(5, 100 + myrank, myrank == 0 .or. myrank == n - 1)
    pair(2) = myrank
    res = -1
    call MPI_Allreduce(pair, res, 1, MPI_2INTEGER, MPI_MINLOC, &
         MPI_COMM_WORLD)
    call chki('allreduce MINLOC value', res(1), 5)
    call chki('allreduce MINLOC location', res(2), 0)
  end subroutine t_reduce

  ! gather, gatherv, scatter, scatterv, allgather, allgatherv
  subroutine t_gather()
    integer :: n, i, j, k, root, sb(2)
    integer, allocatable :: all(:), counts(:), displs(:), mine(:)

    n = nprocs
    allocate(all(2 * n + n * (n + 1) / 2 + n), counts(n), displs(n), &
         mine(n + 1))

    ! gather of two integers to rank 1
    root = 1
    sb = (/ 10 * myrank, 10 * myrank + 1 /)
    all = -1
    call MPI_Gather(sb, 2, MPI_INTEGER, all, 2, MPI_INTEGER, root, &
         MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Gather')
    if (myrank == root) then
      do i = 0, n - 1
        call chki('gather data', all(2 * i + 1), 10 * i)
        call chki('gather data', all(2 * i + 2), 10 * i + 1)
      end do
    end if

    ! gatherv to rank 0: rank i sends i+1 integers, placed in reverse
    ! rank order with one gap slot between blocks
    do i = 1, myrank + 1
      mine(i) = 100 * myrank + i
    end do
    k = 0
    do i = n - 1, 0, -1
      counts(i + 1) = i + 1
      displs(i + 1) = k
      k = k + i + 2
    end do
    all = -1
    call MPI_Gatherv(mine, myrank + 1, MPI_INTEGER, all, counts, displs, &
         MPI_INTEGER, 0, MPI_COMM_WORLD)
    if (myrank == 0) then
      do i = 0, n - 1
        do j = 1, i + 1
          call chki('gatherv data', all(displs(i + 1) + j), 100 * i + j)
        end do
        call chki('gatherv left the gap', all(displs(i + 1) + i + 2), -1)
      end do
    end if

    ! scatter from the last rank, then scatterv back out of the gatherv
    ! layout from rank 0
    root = n - 1
    if (myrank == root) then
      do i = 1, 2 * n
        all(i) = 7 * i
      end do
    end if
    sb = -1
    call MPI_Scatter(all, 2, MPI_INTEGER, sb, 2, MPI_INTEGER, root, &
         MPI_COMM_WORLD)
    call chki('scatter data (1)', sb(1), 7 * (2 * myrank + 1))
    call chki('scatter data (2)', sb(2), 7 * (2 * myrank + 2))

    if (myrank == 0) then
      all = -1
      do i = 0, n - 1
        do j = 1, i + 1
          all(displs(i + 1) + j) = 1000 * i + j
        end do
      end do
    end if
    mine = -1
    call MPI_Scatterv(all, counts, displs, MPI_INTEGER, mine, myrank + 1, &
         MPI_INTEGER, 0, MPI_COMM_WORLD)
    do j = 1, myrank + 1
      call chki('scatterv data', mine(j), 1000 * myrank + j)
    end do
    call chki('scatterv wrote past its count', mine(myrank + 2), -1)

    ! allgather and allgatherv (rank i gives i+1 integers, packed)
    all = -1
    call MPI_Allgather(sb, 2, MPI_INTEGER, all, 2, MPI_INTEGER, &
         MPI_COMM_WORLD)
    do i = 1, 2 * n
      call chki('allgather data', all(i), 7 * i)
    end do
    k = 0
    do i = 0, n - 1
      counts(i + 1) = i + 1
      displs(i + 1) = k
      k = k + i + 1
    end do
    do i = 1, myrank + 1
      mine(i) = 100 * myrank + i
    end do
    all = -1
    call MPI_Allgatherv(mine, myrank + 1, MPI_INTEGER, all, counts, &
         displs, MPI_INTEGER, MPI_COMM_WORLD)
    do i = 0, n - 1
      do j = 1, i + 1
        call chki('allgatherv data', all(displs(i + 1) + j), 100 * i + j)
      end do
    end do
    deallocate(all, counts, displs, mine)
  end subroutine t_gather

  ! alltoall (two integers to each rank) and alltoallv (j+1 integers
  ! from every rank to rank j)
  subroutine t_alltoall()
    integer :: n, i, j, k
    integer, allocatable :: sb(:), rb(:), sc(:), sd(:), rc(:), rd(:)

    n = nprocs
    allocate(sb(2 * n * n), rb(2 * n * n), sc(n), sd(n), rc(n), rd(n))
    do j = 0, n - 1
      sb(2 * j + 1) = 1000 * myrank + 10 * j + 1
      sb(2 * j + 2) = 1000 * myrank + 10 * j + 2
    end do
    rb = -1
    call MPI_Alltoall(sb, 2, MPI_INTEGER, rb, 2, MPI_INTEGER, &
         MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Alltoall')
    do i = 0, n - 1
      call chki('alltoall data', rb(2 * i + 1), 1000 * i + 10 * myrank + 1)
      call chki('alltoall data', rb(2 * i + 2), 1000 * i + 10 * myrank + 2)
    end do

    k = 0
    do j = 0, n - 1
      sc(j + 1) = j + 1
      sd(j + 1) = k
      do i = 1, j + 1
        sb(k + i) = 1000 * myrank + 10 * j + i
      end do
      k = k + j + 1
    end do
    do i = 0, n - 1
      rc(i + 1) = myrank + 1
      ! received blocks in reverse rank order
      rd(i + 1) = (n - 1 - i) * (myrank + 1)
    end do
    rb = -1
    call MPI_Alltoallv(sb, sc, sd, MPI_INTEGER, rb, rc, rd, MPI_INTEGER, &
         MPI_COMM_WORLD)
    do i = 0, n - 1
      do j = 1, myrank + 1
        call chki('alltoallv data', rb(rd(i + 1) + j), &
             1000 * i + 10 * myrank + j)
      end do
    end do
    call chki('alltoallv wrote past the counts', rb(n * (myrank + 1) + 1), &
         -1)
    deallocate(sb, rb, sc, sd, rc, rd)
  end subroutine t_alltoall

  ! scan (inclusive prefix SUM) and exscan (exclusive, undefined on
  ! rank 0)
  subroutine t_scan()
    integer :: v(2), r(2)

    v = (/ myrank + 1, 2 * myrank /)
    r = -1
    call MPI_Scan(v, r, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chkok(ierr, 'MPI_Scan')
    call chki('scan SUM (1)', r(1), (myrank + 1) * (myrank + 2) / 2)
    call chki('scan SUM (2)', r(2), myrank * (myrank + 1))
    r = -1
    call MPI_Exscan(v, r, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (myrank > 0) then
      call chki('exscan SUM (1)', r(1), myrank * (myrank + 1) / 2)
      call chki('exscan SUM (2)', r(2), (myrank - 1) * myrank)
    end if
  end subroutine t_scan

  ! User ops with the mpi_f08 function signature.
  subroutine t_userop()
    type(MPI_Op) :: op, ncop
    integer :: n, i, iv(3), ir(3), p(2), q(2), tot, ea, eb, k
    double precision :: dv(2), dr(2)

    n = nprocs
    op = MPI_OP_NULL
    call MPI_Op_create(sum_or_max, .true., op, ierr)
    call chkok(ierr, 'MPI_Op_create (commutative)')
    call chkl('op_create: op /= MPI_OP_NULL', op /= MPI_OP_NULL, .true.)
    do i = 1, 3
      iv(i) = myrank * i + 1
    end do
    ir = -1
    call MPI_Allreduce(iv, ir, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
    do i = 1, 3
      call chki('user op (integer sum) allreduce', ir(i), &
           i * n * (n - 1) / 2 + n)
    end do
    dv = (/ dble(myrank), -dble(myrank) /)
    dr = 0.0d0
    call MPI_Reduce(dv, dr, 2, MPI_DOUBLE_PRECISION, op, n - 1, &
         MPI_COMM_WORLD)
    if (myrank == n - 1) then
      call chkd('user op (double max) reduce (1)', dr(1), dble(n - 1))
      call chkd('user op (double max) reduce (2)', dr(2), 0.0d0)
    end if
    ir = iv
    call MPI_Allreduce(MPI_IN_PLACE, ir, 3, MPI_INTEGER, op, &
         MPI_COMM_WORLD)
    call chki('user op MPI_IN_PLACE allreduce', ir(3), 3 * n * (n - 1) / 2 + n)
    call MPI_Op_free(op, ierr)
    call chkok(ierr, 'MPI_Op_free')
    call chkl('op after op_free == MPI_OP_NULL', op == MPI_OP_NULL, .true.)

    ! non-commutative: rank r's map is x -> (r+2)*x + (r+1) (mod 9973);
    ! the result applies rank 0's first
    call MPI_Op_create(compose, .false., ncop)
    p = (/ myrank + 2, myrank + 1 /)
    q = (/ -1, -1 /)
    call MPI_Reduce(p, q, 1, MPI_2INTEGER, ncop, 0, MPI_COMM_WORLD)
    ea = 1
    eb = 0
    do k = 0, n - 1
      eb = mod((k + 2) * eb + (k + 1), 9973)
      ea = mod((k + 2) * ea, 9973)
    end do
    if (myrank == 0) then
      call chki('non-commutative reduce: factor', q(1), ea)
      call chki('non-commutative reduce: offset (operand order)', q(2), eb)
    end if
    call MPI_Scan(p, q, 1, MPI_2INTEGER, ncop, MPI_COMM_WORLD)
    ea = 1
    eb = 0
    do k = 0, myrank
      eb = mod((k + 2) * eb + (k + 1), 9973)
      ea = mod((k + 2) * ea, 9973)
    end do
    call chki('non-commutative scan: factor', q(1), ea)
    call chki('non-commutative scan: offset (operand order)', q(2), eb)
    call MPI_Op_free(ncop)
    call chkl('non-commutative op after op_free == MPI_OP_NULL', &
         ncop == MPI_OP_NULL, .true.)

    call chki('user functions called with an unexpected datatype', &
         nbadtype, 0)
    tot = -1
    call MPI_Allreduce(ncalls, tot, 1, MPI_INTEGER, MPI_SUM, &
         MPI_COMM_WORLD)
    call chkl('user functions were called', tot > 0, .true.)
  end subroutine t_userop

  ! iallreduce + wait, ibcast + iallreduce (MPI_IN_PLACE) + waitall
  subroutine t_nonblocking()
    type(MPI_Request) :: req, reqs(2)
    type(MPI_Status) :: st
    integer, asynchronous :: s(3), r(3), b(2), ip(1)
    integer :: n, i

    n = nprocs
    do i = 1, 3
      s(i) = myrank + 10 * i
    end do
    r = -1
    call MPI_Iallreduce(s, r, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
         req, ierr)
    call chkok(ierr, 'MPI_Iallreduce')
    call chkl('iallreduce request /= MPI_REQUEST_NULL', &
         req /= MPI_REQUEST_NULL, .true.)
    call MPI_Wait(req, st, ierr)
    call chkok(ierr, 'MPI_Wait (iallreduce)')
    call chkl('iallreduce request after wait == MPI_REQUEST_NULL', &
         req == MPI_REQUEST_NULL, .true.)
    do i = 1, 3
      call chki('iallreduce SUM', r(i), n * (n - 1) / 2 + 10 * i * n)
    end do

    if (myrank == 0) then
      b = (/ 77, 88 /)
    else
      b = 0
    end if
    ip = myrank
    call MPI_Ibcast(b, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(1))
    call MPI_Iallreduce(MPI_IN_PLACE, ip, 1, MPI_INTEGER, MPI_MAX, &
         MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call chkok(ierr, 'MPI_Waitall (ibcast, iallreduce)')
    call chkl('waitall: requests == MPI_REQUEST_NULL', &
         all(reqs == MPI_REQUEST_NULL), .true.)
    call chki('ibcast data (1)', b(1), 77)
    call chki('ibcast data (2)', b(2), 88)
    call chki('iallreduce MPI_IN_PLACE MAX', ip(1), n - 1)
  end subroutine t_nonblocking

  ! comm_split, dup, compare, free
  subroutine t_comms()
    type(MPI_Comm) :: half, dup, rev
    integer :: res, r, s, n

    n = nprocs
    ! even and odd ranks, each half in reverse order
    call MPI_Comm_split(MPI_COMM_WORLD, mod(myrank, 2), -myrank, half, ierr)
    call chkok(ierr, 'MPI_Comm_split')
    call MPI_Comm_size(half, s)
    call MPI_Comm_rank(half, r)
    if (mod(myrank, 2) == 0) then
      call chki('split size (even ranks)', s, (n + 1) / 2)
      call chki('split rank (reverse order)', r, (n + 1) / 2 - 1 - myrank / 2)
    else
      call chki('split size (odd ranks)', s, n / 2)
      call chki('split rank (reverse order)', r, n / 2 - 1 - myrank / 2)
    end if

    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_split(MPI_COMM_WORLD, 0, n - myrank, rev)
    call MPI_Comm_rank(rev, r)
    call chki('split rank (all, reversed)', r, n - 1 - myrank)

    res = -1
    call MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, res, ierr)
    call chkok(ierr, 'MPI_Comm_compare')
    call chki('compare world, world', res, MPI_IDENT)
    call MPI_Comm_compare(MPI_COMM_WORLD, dup, res)
    call chki('compare world, dup', res, MPI_CONGRUENT)
    call MPI_Comm_compare(MPI_COMM_WORLD, rev, res)
    call chki('compare world, reversed', res, MPI_SIMILAR)
    call MPI_Comm_compare(MPI_COMM_WORLD, half, res)
    call chki('compare world, half', res, MPI_UNEQUAL)

    call MPI_Comm_free(half, ierr)
    call chkok(ierr, 'MPI_Comm_free')
    call MPI_Comm_free(dup)
    call MPI_Comm_free(rev)
    call chkl('freed communicators == MPI_COMM_NULL', &
         half == MPI_COMM_NULL .and. dup == MPI_COMM_NULL .and. &
         rev == MPI_COMM_NULL, .true.)
  end subroutine t_comms

  ! groups: comm_group, size, rank, incl (even ranks, and in reverse),
  ! translate_ranks, compare, MPI_GROUP_EMPTY, comm_create, free
  subroutine t_groups()
    type(MPI_Group) :: world, evens, revens, wg2
    type(MPI_Comm) :: ecomm
    integer :: n, ne, i, s, r, res
    integer, allocatable :: ranks(:), rranks(:), tr(:)

    n = nprocs
    ne = (n + 1) / 2
    allocate(ranks(ne), rranks(ne), tr(ne))
    call MPI_Comm_group(MPI_COMM_WORLD, world, ierr)
    call chkok(ierr, 'MPI_Comm_group')
    call MPI_Group_size(world, s)
    call chki('group_size of world', s, n)
    call MPI_Group_rank(world, r)
    call chki('group_rank in world', r, myrank)
    do i = 1, ne
      ranks(i) = 2 * (i - 1)
      rranks(i) = 2 * (ne - i)
    end do
    call MPI_Group_incl(world, ne, ranks, evens, ierr)
    call chkok(ierr, 'MPI_Group_incl')
    call MPI_Group_incl(world, ne, rranks, revens)
    call MPI_Group_size(evens, s)
    call chki('group_size of the even ranks', s, ne)
    call MPI_Group_rank(evens, r)
    if (mod(myrank, 2) == 0) then
      call chki('group_rank in evens', r, myrank / 2)
    else
      call chki('group_rank in evens (not a member)', r, MPI_UNDEFINED)
    end if
    tr = -1
    call MPI_Group_translate_ranks(revens, ne, (/ (i - 1, i = 1, ne) /), &
         world, tr)
    do i = 1, ne
      call chki('translate_ranks revens -> world', tr(i), rranks(i))
    end do
    call MPI_Group_compare(evens, evens, res)
    call chki('group_compare evens, evens', res, MPI_IDENT)
    if (ne > 1) then
      call MPI_Group_compare(evens, revens, res)
      call chki('group_compare evens, reversed evens', res, MPI_SIMILAR)
    end if
    call MPI_Group_compare(world, evens, res)
    call chki('group_compare world, evens', res, MPI_UNEQUAL)
    call MPI_Comm_group(MPI_COMM_WORLD, wg2)
    call MPI_Group_compare(world, wg2, res)
    call chki('group_compare of two comm_groups of world', res, MPI_IDENT)
    call MPI_Group_size(MPI_GROUP_EMPTY, s)
    call chki('group_size of MPI_GROUP_EMPTY', s, 0)

    call MPI_Comm_create(MPI_COMM_WORLD, evens, ecomm, ierr)
    call chkok(ierr, 'MPI_Comm_create')
    if (mod(myrank, 2) == 0) then
      call chkl('comm_create: member gets a communicator', &
           ecomm /= MPI_COMM_NULL, .true.)
      if (ecomm /= MPI_COMM_NULL) then
        call MPI_Comm_size(ecomm, s)
        call chki('comm_create size', s, ne)
        call MPI_Comm_free(ecomm)
      end if
    else
      call chkl('comm_create: non-member gets MPI_COMM_NULL', &
           ecomm == MPI_COMM_NULL, .true.)
    end if

    call MPI_Group_free(evens, ierr)
    call chkok(ierr, 'MPI_Group_free')
    call MPI_Group_free(revens)
    call MPI_Group_free(wg2)
    call MPI_Group_free(world)
    call chkl('freed groups == MPI_GROUP_NULL', evens == MPI_GROUP_NULL &
         .and. world == MPI_GROUP_NULL, .true.)
    deallocate(ranks, rranks, tr)
  end subroutine t_groups

  ! A 2-D Cartesian grid, periodic in the first dimension only.
  subroutine t_cart()
    type(MPI_Comm) :: cart
    integer :: dims(2), coords(2), gdims(2), gcoords(2), src, dst, r, nd
    integer :: st
    logical :: periods(2), gper(2)

    dims = 0
    call MPI_Dims_create(nprocs, 2, dims, ierr)
    call chkok(ierr, 'MPI_Dims_create')
    call chki('dims_create product', dims(1) * dims(2), nprocs)
    call chkl('dims_create nonincreasing', dims(1) >= dims(2), .true.)
    periods = (/ .true., .false. /)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, &
         ierr)
    call chkok(ierr, 'MPI_Cart_create')
    call chkl('cart_create gives a communicator', cart /= MPI_COMM_NULL, &
         .true.)
    if (cart == MPI_COMM_NULL) return
    call MPI_Topo_test(cart, st)
    call chki('topo_test', st, MPI_CART)
    call MPI_Cartdim_get(cart, nd)
    call chki('cartdim_get', nd, 2)
    call MPI_Cart_coords(cart, myrank, 2, coords, ierr)
    call chkok(ierr, 'MPI_Cart_coords')
    ! row-major: the last dimension varies fastest
    call chki('cart_coords (1)', coords(1), myrank / dims(2))
    call chki('cart_coords (2)', coords(2), mod(myrank, dims(2)))
    gper = (/ .false., .true. /)
    gdims = -1
    gcoords = -1
    call MPI_Cart_get(cart, 2, gdims, gper, gcoords)
    call chki('cart_get dims (1)', gdims(1), dims(1))
    call chki('cart_get dims (2)', gdims(2), dims(2))
    call chkl('cart_get periods (1)', gper(1), .true.)
    call chkl('cart_get periods (2)', gper(2), .false.)
    call chki('cart_get coords (1)', gcoords(1), coords(1))
    call MPI_Cart_rank(cart, coords, r)
    call chki('cart_rank of my coords', r, myrank)

    ! periodic dimension: wraps around
    call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
    call chkok(ierr, 'MPI_Cart_shift')
    call chki('cart_shift dim 0 dest', dst, &
         mod(coords(1) + 1, dims(1)) * dims(2) + coords(2))
    call chki('cart_shift dim 0 source', src, &
         mod(coords(1) - 1 + dims(1), dims(1)) * dims(2) + coords(2))
    ! not periodic: MPI_PROC_NULL at the edges
    call MPI_Cart_shift(cart, 1, 1, src, dst)
    if (coords(2) == dims(2) - 1) then
      call chki('cart_shift dim 1 dest at the edge', dst, MPI_PROC_NULL)
    else
      call chki('cart_shift dim 1 dest', dst, myrank + 1)
    end if
    if (coords(2) == 0) then
      call chki('cart_shift dim 1 source at the edge', src, MPI_PROC_NULL)
    else
      call chki('cart_shift dim 1 source', src, myrank - 1)
    end if
    call MPI_Comm_free(cart)
    call chkl('cart after free == MPI_COMM_NULL', cart == MPI_COMM_NULL, &
         .true.)
  end subroutine t_cart

  ! type_vector: 3 blocks of 2 INTEGERs, stride 4, bcast from rank 0
  ! into the same layout and into a contiguous buffer.
  subroutine t_vector()
    type(MPI_Datatype) :: vec
    integer :: a(12), c(6), i, sz
    integer(kind=MPI_ADDRESS_KIND) :: lb, ext

    vec = MPI_DATATYPE_NULL
    call MPI_Type_vector(3, 2, 4, MPI_INTEGER, vec, ierr)
    call chkok(ierr, 'MPI_Type_vector')
    call MPI_Type_commit(vec, ierr)
    call chkok(ierr, 'MPI_Type_commit')
    call chkl('committed type /= MPI_DATATYPE_NULL', &
         vec /= MPI_DATATYPE_NULL, .true.)
    call MPI_Type_size(vec, sz)
    call chki('type_size of the vector', sz, 6 * 4)
    call MPI_Type_get_extent(vec, lb, ext)
    call chka('type_get_extent lb', lb, 0_MPI_ADDRESS_KIND)
    call chka('type_get_extent extent', ext, 40_MPI_ADDRESS_KIND)
    do i = 1, 12
      a(i) = merge(i, -i, myrank == 0)
    end do
    call MPI_Bcast(a, 1, vec, 0, MPI_COMM_WORLD)
    do i = 1, 12
      if (mod(i - 1, 4) < 2) then
        call chki('bcast with a vector type: block element', a(i), i)
      else
        call chki('bcast with a vector type: gap element', a(i), &
             merge(i, -i, myrank == 0))
      end if
    end do
    ! the vector on rank 0 against 6 contiguous integers elsewhere
    c = -1
    if (myrank == 0) then
      call MPI_Send(a, 1, vec, 1, 5, MPI_COMM_WORLD)
    else if (myrank == 1) then
      call MPI_Recv(c, 6, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, &
           MPI_STATUS_IGNORE)
      call chki('vector -> contiguous c(3)', c(3), 5)
      call chki('vector -> contiguous c(6)', c(6), 10)
    end if
    call MPI_Type_free(vec, ierr)
    call chkok(ierr, 'MPI_Type_free')
    call chkl('type after free == MPI_DATATYPE_NULL', &
         vec == MPI_DATATYPE_NULL, .true.)
  end subroutine t_vector

  ! type_create_struct for a BIND(C) derived type, displacements from
  ! MPI_Get_address (INTEGER(KIND=MPI_ADDRESS_KIND)), resized to the
  ! distance between two array elements; three records bcast.
  subroutine t_struct()
    type, bind(C) :: rec_t
      integer(c_int) :: i
      real(c_double) :: d
      integer(c_int) :: j
    end type rec_t
    type(rec_t) :: r(3)
    type(MPI_Datatype) :: st, rt, types(3)
    integer(kind=MPI_ADDRESS_KIND) :: base, a1, a2, disp(3), lb, ext
    integer :: bl(3), k, sz

    call MPI_Get_address(r(1), base, ierr)
    call chkok(ierr, 'MPI_Get_address')
    call MPI_Get_address(r(1)%i, disp(1))
    call MPI_Get_address(r(1)%d, disp(2))
    call MPI_Get_address(r(1)%j, disp(3))
    disp = disp - base
    call chka('struct displacement of i', disp(1), 0_MPI_ADDRESS_KIND)
    call chkl('struct displacement of d > 0', disp(2) > 0, .true.)
    call chkl('struct displacement of j > d', disp(3) > disp(2), .true.)
    bl = 1
    types = (/ MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_INTEGER /)
    call MPI_Type_create_struct(3, bl, disp, types, st, ierr)
    call chkok(ierr, 'MPI_Type_create_struct')
    call MPI_Type_size(st, sz)
    call chki('type_size of the struct', sz, 16)
    call MPI_Get_address(r(1), a1)
    call MPI_Get_address(r(2), a2)
    call chka('MPI_Aint_diff', MPI_Aint_diff(a2, a1), a2 - a1)
    call MPI_Type_create_resized(st, 0_MPI_ADDRESS_KIND, a2 - a1, rt, ierr)
    call chkok(ierr, 'MPI_Type_create_resized')
    call MPI_Type_commit(rt)
    call MPI_Type_get_extent(rt, lb, ext)
    call chka('resized extent', ext, a2 - a1)
    do k = 1, 3
      if (myrank == 0) then
        r(k) = rec_t(10 * k, 0.5d0 * k, -k)
      else
        r(k) = rec_t(0, 0.0d0, 0)
      end if
    end do
    call MPI_Bcast(r, 3, rt, 0, MPI_COMM_WORLD)
    do k = 1, 3
      call chki('struct bcast i', int(r(k)%i), 10 * k)
      call chkd('struct bcast d', real(r(k)%d, kind(0.0d0)), 0.5d0 * k)
      call chki('struct bcast j', int(r(k)%j), -k)
    end do
    call MPI_Type_free(rt)
    call MPI_Type_free(st)
    call chkl('struct types after free == MPI_DATATYPE_NULL', &
         rt == MPI_DATATYPE_NULL .and. st == MPI_DATATYPE_NULL, .true.)
  end subroutine t_struct

  ! comm_set_name/get_name: the length and the blank padding.
  subroutine t_names()
    type(MPI_Comm) :: dup
    character(len=MPI_MAX_OBJECT_NAME) :: name
    integer :: rlen

    name = 'x'
    rlen = -1
    call MPI_Comm_get_name(MPI_COMM_WORLD, name, rlen, ierr)
    call chkok(ierr, 'MPI_Comm_get_name')
    call chks('name of MPI_COMM_WORLD', name, 'MPI_COMM_WORLD')
    call chki('length of the name of MPI_COMM_WORLD', rlen, 14)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_set_name(dup, 'f08 dup comm', ierr)
    call chkok(ierr, 'MPI_Comm_set_name')
    name = repeat('z', len(name))
    call MPI_Comm_get_name(dup, name, rlen)
    call chki('get_name length', rlen, 12)
    call chks('get_name', name(1:12), 'f08 dup comm')
    call chkl('get_name blank padded', len_trim(name) == 12, .true.)
    call MPI_Comm_free(dup)
  end subroutine t_names

  ! info: create, set, get (flag), get_valuelen, get_nkeys,
  ! get_nthkey, delete, dup, free
  subroutine t_info()
    type(MPI_Info) :: info, dup
    character(len=MPI_MAX_INFO_VAL) :: val
    character(len=MPI_MAX_INFO_KEY) :: key
    integer :: nkeys, vlen
    logical :: flag

    info = MPI_INFO_NULL
    call MPI_Info_create(info, ierr)
    call chkok(ierr, 'MPI_Info_create')
    call chkl('info_create: info /= MPI_INFO_NULL', info /= MPI_INFO_NULL, &
         .true.)
    call MPI_Info_set(info, 'color', 'blue', ierr)
    call chkok(ierr, 'MPI_Info_set')
    call MPI_Info_set(info, 'size', '42')
    call MPI_Info_get_nkeys(info, nkeys)
    call chki('info_get_nkeys', nkeys, 2)
    val = 'x'
    flag = .false.
    call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, val, flag, ierr)
    call chkok(ierr, 'MPI_Info_get')
    call chkl('info_get flag (set key)', flag, .true.)
    call chks('info_get value', val, 'blue')
    call MPI_Info_get(info, 'shape', MPI_MAX_INFO_VAL, val, flag)
    call chkl('info_get flag (unset key)', flag, .false.)
    call MPI_Info_get_valuelen(info, 'size', vlen, flag)
    call chkl('info_get_valuelen flag', flag, .true.)
    call chki('info_get_valuelen', vlen, 2)
    key = 'x'
    call MPI_Info_get_nthkey(info, 0, key)
    call chkl('info_get_nthkey(0) is one of the keys', &
         key == 'color' .or. key == 'size', .true.)
    call MPI_Info_dup(info, dup)
    call MPI_Info_delete(info, 'color', ierr)
    call chkok(ierr, 'MPI_Info_delete')
    call MPI_Info_get_nkeys(info, nkeys)
    call chki('info_get_nkeys after delete', nkeys, 1)
    call MPI_Info_get(dup, 'color', MPI_MAX_INFO_VAL, val, flag)
    call chkl('info_dup kept the deleted key', flag, .true.)
    call chks('info_dup value', val, 'blue')
    call MPI_Info_free(info, ierr)
    call chkok(ierr, 'MPI_Info_free')
    call MPI_Info_free(dup)
    call chkl('infos after free == MPI_INFO_NULL', info == MPI_INFO_NULL &
         .and. dup == MPI_INFO_NULL, .true.)
  end subroutine t_info

  ! comm_get_attr(MPI_TAG_UB): INTEGER(KIND=MPI_ADDRESS_KIND) value,
  ! LOGICAL flag; the standard's minimum is 32767.
  subroutine t_attr()
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: flag

    val = -1
    flag = .false.
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
    call chkok(ierr, 'MPI_Comm_get_attr')
    call chkl('comm_get_attr(MPI_TAG_UB) flag', flag, .true.)
    call chkl('MPI_TAG_UB >= 32767', val >= 32767_MPI_ADDRESS_KIND, .true.)
    call chkl('MPI_TAG_UB fits an INTEGER', val <= huge(0), .true.)
  end subroutine t_attr

end program f08_coll
