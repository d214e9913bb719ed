! SPDX-License-Identifier: MIT
!
! MPI-4.0 calls through the Fortran 2008 bindings ("use mpi_f08"), with
! TYPE(MPI_Request), TYPE(MPI_Session), TYPE(MPI_Group) handles.
!
! Covered: persistent collectives (bcast_init, allgather_init with
! count-kind counts, i.e. MPI_Allgather_init_c, alltoallv_init,
! barrier_init, reduce_scatter_block_init with an info object) started
! together with startall and completed with waitall, three rounds, then
! request_free; partitioned communication (psend_init with 4 partitions
! and precv_init with 2, counts of KIND=MPI_COUNT_KIND, pready_list,
! pready, pready_range, parrived polled with its LOGICAL flag), three
! rounds; isendrecv and isendrecv_replace; sessions (session_init,
! session_get_num_psets, session_get_nth_pset (length, then the name),
! session_get_pset_info (mpi_size), group_from_session_pset,
! comm_create_from_group with a string tag, an allreduce on it,
! session_finalize giving MPI_SESSION_NULL); intercomm_create_from_groups
! of the even and the odd ranks (remote size, a message across); ports
! between the two halves of the world: open_port (a CHARACTER of
! MPI_MAX_PORT_NAME), publish_name/lookup_name (the port found by its
! service name), comm_accept/comm_connect, a message each way,
! comm_disconnect (MPI_COMM_NULL), unpublish_name, close_port.
!
! Ranks: any count >= 2 (pairs (0,1), (2,3), ...; with an odd count the
! last rank only joins the whole-world parts).
!
program f08_mpi40
  use mpi_f08
  use fcheck
  implicit none
  double precision, parameter :: maxwait = 20.0d0
  integer :: ierr, partner

  ierr = -1
  call MPI_Init(ierr)
  call chkok(ierr, 'MPI_Init')
  call fcstart('f08_mpi40', 2, huge(nprocs))
  partner = ieor(myrank, 1)
  if (partner >= nprocs) partner = MPI_PROC_NULL

  call t_pcoll()
  if (partner /= MPI_PROC_NULL) then
    call t_part(partner)
    call t_isendrecv(partner)
  end if
  call t_sessions()
  call t_intercomm()
  call t_ports()
  call fcfinish()

contains

  subroutine t_pcoll()
    integer, parameter :: nr = 5
    type(MPI_Request) :: reqs(nr)
    type(MPI_Info) :: info
    integer, asynchronous :: b(3), g(2), ga(:), at(:), ar(:), rs(:), rr(2)
    allocatable :: ga, at, ar, rs
    integer, allocatable :: counts(:), displs(:)
    integer :: n, round, i, j

    n = nprocs
    allocate(ga(2 * n), at(n), ar(n), rs(2 * n), counts(n), displs(n))
    counts = 1
    do i = 1, n
      displs(i) = i - 1
    end do
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'mpi_assert_no_any_tag', 'true')
    call MPI_Bcast_init(b, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(1), ierr)
    call chkok(ierr, 'MPI_Bcast_init')
    call MPI_Allgather_init(g, 2_MPI_COUNT_KIND, MPI_INTEGER, ga, 2_MPI_COUNT_KIND, &
         MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(2), ierr)
    call chkok(ierr, 'MPI_Allgather_init (count kind)')
    call MPI_Alltoallv_init(at, counts, displs, MPI_INTEGER, ar, counts, displs, &
         MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(3), ierr)
    call chkok(ierr, 'MPI_Alltoallv_init')
    call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, reqs(4), ierr)
    call chkok(ierr, 'MPI_Barrier_init')
    call MPI_Reduce_scatter_block_init(rs, rr, 2, MPI_INTEGER, MPI_SUM, &
         MPI_COMM_WORLD, info, reqs(5), ierr)
    call chkok(ierr, 'MPI_Reduce_scatter_block_init')
    call MPI_Info_free(info)
    do round = 1, 3
      b = -1
      if (myrank == 0) b = (/ round, 2 * round, 3 * round /)
      g = (/ 10 * myrank + round, -myrank /)
      ga = -1
      do i = 1, n
        at(i) = 1000 * myrank + 10 * (i - 1) + round
      end do
      ar = -1
      do i = 1, 2 * n
        rs(i) = round * i + myrank
      end do
      rr = -1
      call MPI_Startall(nr, reqs, ierr)
      call chkok(ierr, 'MPI_Startall (persistent collectives)')
      call MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE, ierr)
      call chkok(ierr, 'MPI_Waitall (persistent collectives)')
      do i = 1, 3
        call chki('bcast_init b(i)', b(i), i * round)
      end do
      do j = 0, n - 1
        call chki('allgather_init (count kind) first', ga(2 * j + 1), 10 * j + round)
        call chki('allgather_init (count kind) second', ga(2 * j + 2), -j)
        call chki('alltoallv_init value', ar(j + 1), 1000 * j + 10 * myrank + round)
      end do
      do i = 1, 2
        call chki('reduce_scatter_block_init value', rr(i), &
             n * round * (2 * myrank + i) + n * (n - 1) / 2)
      end do
    end do
    do i = 1, nr
      call MPI_Request_free(reqs(i), ierr)
      call chkok(ierr, 'MPI_Request_free (persistent collective)')
    end do
    call chkl('request_free: all MPI_REQUEST_NULL', all(reqs == MPI_REQUEST_NULL), .true.)
  end subroutine t_pcoll

  subroutine t_part(partner)
    integer, intent(in) :: partner
    integer, parameter :: n = 2048
    integer, asynchronous :: buf(n)
    integer :: round, i, p, list(2)
    integer(kind=MPI_COUNT_KIND) :: cnt
    logical :: flag, seen(2)
    type(MPI_Request) :: req
    double precision :: t0

    if (myrank < partner) then
      cnt = n / 4
      call MPI_Psend_init(buf, 4, cnt, MPI_INTEGER, partner, 41, MPI_COMM_WORLD, &
           MPI_INFO_NULL, req, ierr)
      call chkok(ierr, 'MPI_Psend_init')
      do round = 1, 3
        do i = 1, n
          buf(i) = round * 100000 + i
        end do
        call MPI_Start(req, ierr)
        list = (/ 3, 1 /)
        call MPI_Pready_list(2, list, req, ierr)
        call chkok(ierr, 'MPI_Pready_list')
        call MPI_Pready(2, req, ierr)
        call chkok(ierr, 'MPI_Pready')
        call MPI_Pready_range(0, 0, req, ierr)
        call chkok(ierr, 'MPI_Pready_range')
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkok(ierr, 'MPI_Wait (psend)')
      end do
    else
      cnt = n / 2
      call MPI_Precv_init(buf, 2, cnt, MPI_INTEGER, partner, 41, MPI_COMM_WORLD, &
           MPI_INFO_NULL, req, ierr)
      call chkok(ierr, 'MPI_Precv_init')
      do round = 1, 3
        buf = -1
        call MPI_Start(req, ierr)
        seen = .false.
        t0 = MPI_Wtime()
        do while (.not. all(seen) .and. MPI_Wtime() - t0 < maxwait)
          do p = 0, 1
            call MPI_Parrived(req, p, flag, ierr)
            call chkok(ierr, 'MPI_Parrived')
            if (flag) seen(p + 1) = .true.
          end do
        end do
        call chkl('parrived: both partitions', all(seen), .true.)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call chkok(ierr, 'MPI_Wait (precv)')
        do i = 1, n, 101
          call chki('precv buf(i)', buf(i), round * 100000 + i)
        end do
        call chki('precv buf(n)', buf(n), round * 100000 + n)
      end do
    end if
    call MPI_Request_free(req)
  end subroutine t_part

  subroutine t_isendrecv(partner)
    integer, intent(in) :: partner
    integer, asynchronous :: s(3), r(3), x(2)
    type(MPI_Request) :: reqs(2)
    type(MPI_Status) :: sts(2)

    s = (/ myrank, 2 * myrank, 3 * myrank /)
    r = -1
    x = (/ 7 * myrank, -myrank /)
    call MPI_Isendrecv(s, 3, MPI_INTEGER, partner, 51, r, 3, MPI_INTEGER, partner, &
         51, MPI_COMM_WORLD, reqs(1), ierr)
    call chkok(ierr, 'MPI_Isendrecv')
    call MPI_Isendrecv_replace(x, 2, MPI_INTEGER, partner, 52, partner, 52, &
         MPI_COMM_WORLD, reqs(2), ierr)
    call chkok(ierr, 'MPI_Isendrecv_replace')
    call MPI_Waitall(2, reqs, sts, ierr)
    call chkok(ierr, 'MPI_Waitall (isendrecv)')
    call chki('isendrecv status source', sts(1)%MPI_SOURCE, partner)
    call chki('isendrecv r(3)', r(3), 3 * partner)
    call chki('isendrecv_replace x(1)', x(1), 7 * partner)
    call chki('isendrecv_replace x(2)', x(2), -partner)
  end subroutine t_isendrecv

  subroutine t_sessions()
    type(MPI_Session) :: s
    type(MPI_Info) :: info
    type(MPI_Group) :: g
    type(MPI_Comm) :: comm
    integer :: n, i, plen, size, rank, sum, found
    character(len=MPI_MAX_PSET_NAME_LEN) :: name
    character(len=32) :: val
    logical :: flag

    call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s, ierr)
    call chkok(ierr, 'MPI_Session_init')
    call chkl('session_init: not MPI_SESSION_NULL', s /= MPI_SESSION_NULL, .true.)
    n = -1
    call MPI_Session_get_num_psets(s, MPI_INFO_NULL, n, ierr)
    call chkok(ierr, 'MPI_Session_get_num_psets')
    call chkl('session_get_num_psets >= 2', n >= 2, .true.)
    found = 0
    do i = 0, n - 1
      plen = 0
      call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, plen, name, ierr)
      call chkok(ierr, 'MPI_Session_get_nth_pset (length)')
      call chkl('session_get_nth_pset length > 0', plen > 0, .true.)
      plen = len(name)
      name = ''
      call MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, plen, name, ierr)
      call chkok(ierr, 'MPI_Session_get_nth_pset (name)')
      if (trim(name) == 'mpi://WORLD') then
        found = found + 1
        call MPI_Session_get_pset_info(s, trim(name), info, ierr)
        call chkok(ierr, 'MPI_Session_get_pset_info')
        val = ''
        call MPI_Info_get(info, 'mpi_size', len(val), val, flag)
        call chkl('pset info mpi_size present', flag, .true.)
        read (val, *) size
        call chki('mpi://WORLD mpi_size', size, nprocs)
        call MPI_Info_free(info)
      else if (trim(name) == 'mpi://SELF') then
        found = found + 10
      end if
    end do
    call chki('psets mpi://WORLD and mpi://SELF found once each', found, 11)
    call MPI_Group_from_session_pset(s, 'mpi://WORLD', g, ierr)
    call chkok(ierr, 'MPI_Group_from_session_pset')
    call MPI_Comm_create_from_group(g, 'org.michi.test.fortran', MPI_INFO_NULL, &
         MPI_ERRORS_RETURN, comm, ierr)
    call chkok(ierr, 'MPI_Comm_create_from_group')
    call MPI_Comm_size(comm, size)
    call MPI_Comm_rank(comm, rank)
    call chki('comm_create_from_group size', size, nprocs)
    call chki('comm_create_from_group rank', rank, myrank)
    call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
    call chkok(ierr, 'MPI_Allreduce on the session communicator')
    call chki('allreduce on the session communicator', sum, nprocs * (nprocs - 1) / 2)
    call MPI_Comm_free(comm)
    call MPI_Group_free(g)
    call MPI_Session_finalize(s, ierr)
    call chkok(ierr, 'MPI_Session_finalize')
    call chkl('session_finalize: MPI_SESSION_NULL', s == MPI_SESSION_NULL, .true.)
  end subroutine t_sessions

  ! the even and the odd ranks of the world, joined
  subroutine t_intercomm()
    type(MPI_Group) :: world, even, odd, mine, other
    type(MPI_Comm) :: inter
    integer :: ranks(nprocs), ne, no, i, rsize, lrank, v
    logical :: flag
    type(MPI_Status) :: st

    call MPI_Comm_group(MPI_COMM_WORLD, world)
    ne = (nprocs + 1) / 2
    no = nprocs / 2
    ranks(1:ne) = (/ (2 * i, i = 0, ne - 1) /)
    call MPI_Group_incl(world, ne, ranks, even)
    ranks(1:no) = (/ (2 * i + 1, i = 0, no - 1) /)
    call MPI_Group_incl(world, no, ranks, odd)
    if (mod(myrank, 2) == 0) then
      mine = even
      other = odd
    else
      mine = odd
      other = even
    end if
    call MPI_Intercomm_create_from_groups(mine, 0, other, 0, 'org.michi.test.fparity', &
         MPI_INFO_NULL, MPI_ERRORS_RETURN, inter, ierr)
    call chkok(ierr, 'MPI_Intercomm_create_from_groups')
    call MPI_Comm_test_inter(inter, flag)
    call chkl('intercomm_create_from_groups: test_inter', flag, .true.)
    call MPI_Comm_remote_size(inter, rsize)
    call chki('intercomm_create_from_groups: remote size', rsize, merge(no, ne, mod(myrank, 2) == 0))
    call MPI_Comm_rank(inter, lrank)
    call chki('intercomm_create_from_groups: local rank', lrank, myrank / 2)
    ! local rank i of the evens and of the odds: a pair of the world
    if (lrank < min(ne, no)) then
      call MPI_Sendrecv(myrank, 1, MPI_INTEGER, lrank, 61, v, 1, MPI_INTEGER, lrank, 61, &
           inter, st, ierr)
      call chkok(ierr, 'MPI_Sendrecv across the intercommunicator')
      call chki('value across the intercommunicator', v, ieor(myrank, 1))
    end if
    call MPI_Comm_free(inter)
    call MPI_Group_free(even)
    call MPI_Group_free(odd)
    call MPI_Group_free(world)
  end subroutine t_intercomm

  ! ports between the halves [0, h) (accepting) and [h, nprocs)
  subroutine t_ports()
    character(len=MPI_MAX_PORT_NAME) :: port, found
    character(len=*), parameter :: service = 'org.michi.test.f08_mpi40'
    type(MPI_Comm) :: half, inter
    integer :: h, lrank, rsize, v, w
    logical :: accepting

    h = nprocs / 2
    accepting = myrank < h
    call MPI_Comm_split(MPI_COMM_WORLD, merge(0, 1, accepting), myrank, half)
    call MPI_Comm_rank(half, lrank)
    port = ''
    if (myrank == 0) then
      call MPI_Open_port(MPI_INFO_NULL, port, ierr)
      call chkok(ierr, 'MPI_Open_port')
      call chkl('open_port: a name', len_trim(port) > 0, .true.)
      call MPI_Publish_name(service, MPI_INFO_NULL, port, ierr)
      call chkok(ierr, 'MPI_Publish_name')
      call MPI_Send(port, len(port), MPI_CHARACTER, h, 71, MPI_COMM_WORLD)
    else if (myrank == h) then
      call MPI_Recv(port, len(port), MPI_CHARACTER, 0, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      found = ''
      call MPI_Lookup_name(service, MPI_INFO_NULL, found, ierr)
      call chkok(ierr, 'MPI_Lookup_name')
      call chks('lookup_name gives the published port', trim(found), trim(port))
    end if
    if (accepting) then
      call MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, inter, ierr)
      call chkok(ierr, 'MPI_Comm_accept')
    else
      call MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, inter, ierr)
      call chkok(ierr, 'MPI_Comm_connect')
    end if
    call MPI_Comm_remote_size(inter, rsize)
    call chki('accept/connect: remote size', rsize, merge(nprocs - h, h, accepting))
    ! local rank 0 of each side: a value each way
    if (lrank == 0) then
      v = merge(1000, 2000, accepting)
      call MPI_Sendrecv(v, 1, MPI_INTEGER, 0, 72, w, 1, MPI_INTEGER, 0, 72, inter, &
           MPI_STATUS_IGNORE, ierr)
      call chkok(ierr, 'MPI_Sendrecv across accept/connect')
      call chki('value across accept/connect', w, merge(2000, 1000, accepting))
    end if
    call MPI_Comm_disconnect(inter, ierr)
    call chkok(ierr, 'MPI_Comm_disconnect')
    call chkl('comm_disconnect: MPI_COMM_NULL', inter == MPI_COMM_NULL, .true.)
    if (myrank == 0) then
      call MPI_Unpublish_name(service, MPI_INFO_NULL, port, ierr)
      call chkok(ierr, 'MPI_Unpublish_name')
      call MPI_Close_port(port, ierr)
      call chkok(ierr, 'MPI_Close_port')
    end if
    call MPI_Comm_free(half)
  end subroutine t_ports
end program f08_mpi40
