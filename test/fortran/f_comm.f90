! SPDX-License-Identifier: MIT
!
! Communicators, groups and topologies through "use mpi": comm_dup,
! comm_split, comm_compare (MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR,
! MPI_UNEQUAL), comm_group, group_incl, group_size/rank,
! group_translate_ranks, comm_create, comm_set_name/comm_get_name (the
! name comes back blank padded, with its length), comm_test_inter,
! dims_create, cart_create (LOGICAL periods and reorder), cartdim_get,
! cart_get (LOGICAL periods out), cart_coords, cart_rank, cart_shift,
! cart_sub (LOGICAL remain_dims), topo_test, intercomm_create,
! comm_remote_size and intercomm_merge (LOGICAL high).
!
! The checks, the start and the end are those of fcheck.f90 (module
! fcheck).
!
! Ranks: any count >= 2 (validated at 2, 3 and 4).
!
program f_comm
  use mpi
  use fcheck
  implicit none
  integer :: ierr

  call mpi_init(ierr)
  call fcstart('f_comm', 2, huge(nprocs))

  call t_compare()
  call t_groups()
  call t_names()
  call t_cart()
  call t_inter()
  call fcfinish()

contains

  ! comm_dup, comm_split and comm_compare's four answers.
  subroutine t_compare()
    integer :: dup, half, rev, res, ierr, sz, rk
    logical :: flag

    call mpi_comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, res, ierr)
    call chkok(ierr, 'mpi_comm_compare')
    call chki('compare world with world (MPI_IDENT)', res, MPI_IDENT)

    call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
    call chkok(ierr, 'mpi_comm_dup')
    call mpi_comm_compare(MPI_COMM_WORLD, dup, res, ierr)
    call chki('compare world with its dup (MPI_CONGRUENT)', res, &
         MPI_CONGRUENT)
    call mpi_comm_compare(dup, dup, res, ierr)
    call chki('compare dup with itself (MPI_IDENT)', res, MPI_IDENT)

    ! one colour, reversed keys: same group, other order
    call mpi_comm_split(MPI_COMM_WORLD, 0, nprocs - myrank, rev, ierr)
    call chkok(ierr, 'mpi_comm_split (reversed)')
    call mpi_comm_rank(rev, rk, ierr)
    call chki('rank in the reversed split', rk, nprocs - 1 - myrank)
    call mpi_comm_compare(MPI_COMM_WORLD, rev, res, ierr)
    call chki('compare world with reversed split (MPI_SIMILAR)', res, &
         MPI_SIMILAR)

    ! two halves: other group
    call mpi_comm_split(MPI_COMM_WORLD, myrank / ((nprocs + 1) / 2), &
         myrank, half, ierr)
    call mpi_comm_size(half, sz, ierr)
    if (myrank < (nprocs + 1) / 2) then
      call chki('size of the lower half', sz, (nprocs + 1) / 2)
    else
      call chki('size of the upper half', sz, nprocs - (nprocs + 1) / 2)
    end if
    call mpi_comm_compare(MPI_COMM_WORLD, half, res, ierr)
    call chki('compare world with a half (MPI_UNEQUAL)', res, MPI_UNEQUAL)

    call mpi_comm_test_inter(dup, flag, ierr)
    call chkok(ierr, 'mpi_comm_test_inter')
    call chkl('comm_test_inter on an intracomm', flag, .false.)

    call mpi_comm_free(half, ierr)
    call mpi_comm_free(rev, ierr)
    call mpi_comm_free(dup, ierr)
    call chki('dup after comm_free', dup, MPI_COMM_NULL)
  end subroutine t_compare

  ! The even ranks of the world in reverse order as a group; comm_create
  ! makes a comm of them, others get MPI_COMM_NULL.
  subroutine t_groups()
    integer :: wgroup, egroup, cgroup, newcomm, ierr, ne, i, sz, rk, res
    integer :: ranks(0:nprocs - 1), tr(0:nprocs - 1), idx(0:nprocs - 1)
    integer :: sum, expect

    call mpi_comm_group(MPI_COMM_WORLD, wgroup, ierr)
    call chkok(ierr, 'mpi_comm_group')
    call mpi_group_size(wgroup, sz, ierr)
    call chki('size of the world group', sz, nprocs)
    call mpi_group_rank(wgroup, rk, ierr)
    call chki('rank in the world group', rk, myrank)

    ne = (nprocs + 1) / 2
    do i = 0, ne - 1
      ranks(i) = 2 * (ne - 1 - i)
    end do
    call mpi_group_incl(wgroup, ne, ranks, egroup, ierr)
    call chkok(ierr, 'mpi_group_incl')
    call mpi_group_size(egroup, sz, ierr)
    call chki('size of the group of even ranks', sz, ne)
    call mpi_group_rank(egroup, rk, ierr)
    if (mod(myrank, 2) == 0) then
      call chki('rank in the group of even ranks', rk, ne - 1 - myrank / 2)
    else
      call chki('rank in a group without me', rk, MPI_UNDEFINED)
    end if

    do i = 0, ne - 1
      idx(i) = i
      tr(i) = -5
    end do
    call mpi_group_translate_ranks(egroup, ne, idx, wgroup, tr, ierr)
    call chkok(ierr, 'mpi_group_translate_ranks')
    do i = 0, ne - 1
      call chki('translate_ranks even group -> world', tr(i), ranks(i))
    end do
    ! and back: odd world ranks are not in the group
    do i = 0, nprocs - 1
      idx(i) = i
      tr(i) = -5
    end do
    call mpi_group_translate_ranks(wgroup, nprocs, idx, egroup, tr, ierr)
    do i = 0, nprocs - 1
      if (mod(i, 2) == 0) then
        call chki('translate_ranks world -> even group', tr(i), &
             ne - 1 - i / 2)
      else
        call chki('translate_ranks of a rank outside', tr(i), &
             MPI_UNDEFINED)
      end if
    end do

    call mpi_comm_create(MPI_COMM_WORLD, egroup, newcomm, ierr)
    call chkok(ierr, 'mpi_comm_create')
    if (mod(myrank, 2) == 0) then
      call mpi_comm_size(newcomm, sz, ierr)
      call mpi_comm_rank(newcomm, rk, ierr)
      call chki('size of the created comm', sz, ne)
      call chki('rank in the created comm', rk, ne - 1 - myrank / 2)
      call mpi_comm_group(newcomm, cgroup, ierr)
      call mpi_group_compare(cgroup, egroup, res, ierr)
      call chki('group of the created comm (MPI_IDENT)', res, MPI_IDENT)
      call mpi_group_free(cgroup, ierr)
      sum = -1
      call mpi_allreduce(myrank, sum, 1, MPI_INTEGER, MPI_SUM, newcomm, &
           ierr)
      expect = 0
      do i = 0, nprocs - 1, 2
        expect = expect + i
      end do
      call chki('allreduce on the created comm', sum, expect)
      call mpi_comm_free(newcomm, ierr)
    else
      call chki('comm_create for a non-member', newcomm, MPI_COMM_NULL)
    end if
    call mpi_group_free(egroup, ierr)
    call chkok(ierr, 'mpi_group_free')
    call chki('group after group_free', egroup, MPI_GROUP_NULL)
    call mpi_group_free(wgroup, ierr)
  end subroutine t_groups

  ! Names: Fortran strings come back blank padded, with their length.
  subroutine t_names()
    integer :: dup, ierr, rlen, i
    character(len=MPI_MAX_OBJECT_NAME) :: name
    logical :: padded

    name = repeat('x', len(name))
    rlen = -1
    call mpi_comm_get_name(MPI_COMM_WORLD, name, rlen, ierr)
    call chkok(ierr, 'mpi_comm_get_name')
    call chki('length of the name of MPI_COMM_WORLD', rlen, 14)
    call chks('name of MPI_COMM_WORLD', trim(name), 'MPI_COMM_WORLD')

    call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
    call mpi_comm_set_name(dup, 'my comm', ierr)
    call chkok(ierr, 'mpi_comm_set_name')
    name = repeat('x', len(name))
    rlen = -1
    call mpi_comm_get_name(dup, name, rlen, ierr)
    call chki('length of the name set', rlen, 7)
    call chks('name set', name(1:7), 'my comm')
    padded = .true.
    do i = 8, len(name)
      if (name(i:i) /= ' ') padded = .false.
    end do
    call chkl('name blank padded after its length', padded, .true.)

    ! trailing blanks of the argument are not part of the name
    call mpi_comm_set_name(dup, 'second   ', ierr)
    name = repeat('x', len(name))
    call mpi_comm_get_name(dup, name, rlen, ierr)
    call chki('length of a name set with trailing blanks', rlen, 6)
    call chks('name set with trailing blanks', trim(name), 'second')
    call mpi_comm_free(dup, ierr)
  end subroutine t_names

  ! Cartesian topologies on dims from dims_create.
  subroutine t_cart()
    integer :: dims(2), gdims(2), coords(2), gcoords(2), c(2)
    integer :: cart, cart2, row, col, ierr, rk, sz, src, dst, nd, st, i
    logical :: periods(2), gper(2), remain(2)

    dims = 0
    call mpi_dims_create(nprocs, 2, dims, ierr)
    call chkok(ierr, 'mpi_dims_create')
    call chki('dims_create: product of dims', dims(1) * dims(2), nprocs)
    call chkl('dims_create: dims non-increasing', dims(1) >= dims(2), &
         .true.)
    ! a fixed dimension is kept
    gdims(1) = 0
    gdims(2) = 1
    call mpi_dims_create(nprocs, 2, gdims, ierr)
    call chki('dims_create with a fixed dim: free dim', gdims(1), nprocs)
    call chki('dims_create with a fixed dim: fixed dim', gdims(2), 1)

    periods = (/ .true., .false. /)
    call mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, &
         ierr)
    call chkok(ierr, 'mpi_cart_create')
    call mpi_comm_rank(cart, rk, ierr)
    call chki('rank in a cart without reorder', rk, myrank)
    call mpi_topo_test(cart, st, ierr)
    call chkok(ierr, 'mpi_topo_test')
    call chki('topo_test of a cart', st, MPI_CART)
    call mpi_topo_test(MPI_COMM_WORLD, st, ierr)
    call chki('topo_test of the world', st, MPI_UNDEFINED)
    call mpi_cartdim_get(cart, nd, ierr)
    call chki('cartdim_get', nd, 2)

    gper(1) = .false.
    gper(2) = .true.
    gdims = -1
    gcoords = -1
    call mpi_cart_get(cart, 2, gdims, gper, gcoords, ierr)
    call chkok(ierr, 'mpi_cart_get')
    call chki('cart_get dims(1)', gdims(1), dims(1))
    call chki('cart_get dims(2)', gdims(2), dims(2))
    call chkl('cart_get periods(1)', gper(1), .true.)
    call chkl('cart_get periods(2)', gper(2), .false.)
    ! row major: rank = c1 * dims(2) + c2
    call chki('cart_get coords(1)', gcoords(1), myrank / dims(2))
    call chki('cart_get coords(2)', gcoords(2), mod(myrank, dims(2)))

    do i = 0, nprocs - 1
      coords = -1
      call mpi_cart_coords(cart, i, 2, coords, ierr)
      call chki('cart_coords(1)', coords(1), i / dims(2))
      call chki('cart_coords(2)', coords(2), mod(i, dims(2)))
      rk = -1
      call mpi_cart_rank(cart, coords, rk, ierr)
      call chki('cart_rank of cart_coords', rk, i)
    end do
    ! the periodic dimension wraps
    c(1) = -1
    c(2) = dims(2) - 1
    call mpi_cart_rank(cart, c, rk, ierr)
    call chkok(ierr, 'mpi_cart_rank (wrapped)')
    call chki('cart_rank with coords(1) = -1 (periodic)', rk, &
         (dims(1) - 1) * dims(2) + dims(2) - 1)

    ! shift along the periodic dim 0 by +1 and along dim 1 by +1
    call mpi_cart_shift(cart, 0, 1, src, dst, ierr)
    call chkok(ierr, 'mpi_cart_shift')
    call chki('cart_shift dim 0 source', src, &
         mod(gcoords(1) - 1 + dims(1), dims(1)) * dims(2) + gcoords(2))
    call chki('cart_shift dim 0 dest', dst, &
         mod(gcoords(1) + 1, dims(1)) * dims(2) + gcoords(2))
    call mpi_cart_shift(cart, 1, 1, src, dst, ierr)
    if (gcoords(2) == 0) then
      call chki('cart_shift dim 1 source at the edge', src, MPI_PROC_NULL)
    else
      call chki('cart_shift dim 1 source', src, myrank - 1)
    end if
    if (gcoords(2) == dims(2) - 1) then
      call chki('cart_shift dim 1 dest at the edge', dst, MPI_PROC_NULL)
    else
      call chki('cart_shift dim 1 dest', dst, myrank + 1)
    end if

    ! cart_sub: rows keep dim 2, columns keep dim 1
    remain = (/ .false., .true. /)
    call mpi_cart_sub(cart, remain, row, ierr)
    call chkok(ierr, 'mpi_cart_sub')
    call mpi_comm_size(row, sz, ierr)
    call mpi_comm_rank(row, rk, ierr)
    call chki('size of a row (cart_sub)', sz, dims(2))
    call chki('rank in a row (cart_sub)', rk, gcoords(2))
    call mpi_topo_test(row, st, ierr)
    call chki('topo_test of a cart_sub comm', st, MPI_CART)
    remain = (/ .true., .false. /)
    call mpi_cart_sub(cart, remain, col, ierr)
    call mpi_comm_size(col, sz, ierr)
    call mpi_comm_rank(col, rk, ierr)
    call chki('size of a column (cart_sub)', sz, dims(1))
    call chki('rank in a column (cart_sub)', rk, gcoords(1))
    call mpi_cart_get(col, 1, gdims, gper, gcoords, ierr)
    call chkl('periods of a column (cart_sub)', gper(1), .true.)
    call mpi_comm_free(row, ierr)
    call mpi_comm_free(col, ierr)

    ! reorder .true.: coords and rank still agree with each other
    periods = (/ .false., .true. /)
    call mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., cart2, &
         ierr)
    call chkok(ierr, 'mpi_cart_create (reorder)')
    call mpi_comm_rank(cart2, rk, ierr)
    call mpi_cart_coords(cart2, rk, 2, coords, ierr)
    call mpi_cart_rank(cart2, coords, i, ierr)
    call chki('cart_rank(cart_coords(rank)) with reorder', i, rk)
    call mpi_cart_get(cart2, 2, gdims, gper, gcoords, ierr)
    call chkl('cart_get periods(1) with reorder', gper(1), .false.)
    call chkl('cart_get periods(2) with reorder', gper(2), .true.)
    call chki('cart_get coords(1) with reorder', gcoords(1), coords(1))
    call mpi_comm_free(cart2, ierr)
    call mpi_comm_free(cart, ierr)
  end subroutine t_cart

  ! Lower and upper halves of the world joined by intercomm_create, then
  ! merged both ways round with intercomm_merge.
  subroutine t_inter()
    integer :: local, inter, merged, ierr, nlow, sz, rsz, rk, rleader
    logical :: lower, flag
    integer :: v, sum

    nlow = nprocs / 2
    lower = myrank < nlow
    call mpi_comm_split(MPI_COMM_WORLD, merge(0, 1, lower), myrank, local, &
         ierr)
    if (lower) then
      rleader = nlow
    else
      rleader = 0
    end if
    call mpi_intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 123, &
         inter, ierr)
    call chkok(ierr, 'mpi_intercomm_create')
    call mpi_comm_test_inter(inter, flag, ierr)
    call chkl('comm_test_inter on an intercomm', flag, .true.)
    call mpi_comm_size(inter, sz, ierr)
    call mpi_comm_remote_size(inter, rsz, ierr)
    call chkok(ierr, 'mpi_comm_remote_size')
    if (lower) then
      call chki('local size of the intercomm (lower)', sz, nlow)
      call chki('remote size of the intercomm (lower)', rsz, nprocs - nlow)
    else
      call chki('local size of the intercomm (upper)', sz, nprocs - nlow)
      call chki('remote size of the intercomm (upper)', rsz, nlow)
    end if

    ! lower half low: merged ranks are the world ranks
    call mpi_intercomm_merge(inter, .not. lower, merged, ierr)
    call chkok(ierr, 'mpi_intercomm_merge')
    call mpi_comm_size(merged, sz, ierr)
    call mpi_comm_rank(merged, rk, ierr)
    call chki('size of the merged comm', sz, nprocs)
    call chki('rank in the merged comm (lower half low)', rk, myrank)
    call mpi_comm_test_inter(merged, flag, ierr)
    call chkl('comm_test_inter on a merged comm', flag, .false.)
    v = myrank
    call mpi_allreduce(v, sum, 1, MPI_INTEGER, MPI_SUM, merged, ierr)
    call chki('allreduce on the merged comm', sum, &
         nprocs * (nprocs - 1) / 2)
    call mpi_comm_free(merged, ierr)

    ! upper half low
    call mpi_intercomm_merge(inter, lower, merged, ierr)
    call mpi_comm_rank(merged, rk, ierr)
    if (lower) then
      call chki('rank in the merged comm (upper half low)', rk, &
           myrank + nprocs - nlow)
    else
      call chki('rank in the merged comm (upper half low)', rk, &
           myrank - nlow)
    end if
    call mpi_comm_free(merged, ierr)
    call mpi_comm_free(inter, ierr)
    call chki('intercomm after comm_free', inter, MPI_COMM_NULL)
    call mpi_comm_free(local, ierr)
  end subroutine t_inter

end program f_comm
