! SPDX-License-Identifier: MIT
!
! Process creation through "use mpi": mpi_comm_get_parent is
! MPI_COMM_NULL in the parents; mpi_comm_spawn of this program with a
! CHARACTER argument list ended by a blank entry ('child', 'x y', ' ')
! starts 2 children, which see the arguments in order (the blank-padded
! entries trimmed, the inner blank kept), receive a number from parent
! rank 0 and answer it doubled over the intercommunicator;
! mpi_comm_spawn_multiple with two commands (ARRAY_OF_ARGV(2, 2), column
! order) starts 1 + 1 more, whose MPI_APPNUM and first argument must
! agree; MPI_ARGV_NULL and MPI_ERRCODES_IGNORE are accepted. Everyone
! disconnects. The children report their error counts to parent rank 0.
!
! Ranks: any count >= 1 (validated at 1 and 2).
!
program f_spawn
  use mpi
  use fcheck
  implicit none
  integer :: ierr, parent, inter, i, v, cerr, errcodes(2), appnum_flag
  integer :: maxprocs(2), infos(2), argc
  integer(kind=MPI_ADDRESS_KIND) :: appnum
  logical :: flag
  character(len=256) :: exe, arg1, arg2
  character(len=16) :: argv(3), argvs(2, 2), cmds(2)*256

  call mpi_init(ierr)
  call mpi_comm_get_parent(parent, ierr)
  call get_command_argument(0, exe)
  argc = command_argument_count()
  if (parent /= MPI_COMM_NULL) then
    call child()
    stop
  end if
  call fcstart('f_spawn', 1, huge(i))

  ! mpi_comm_spawn with an argument list
  argv(1) = 'child'
  argv(2) = 'x y'
  argv(3) = ' '
  call mpi_comm_spawn(exe, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errcodes, ierr)
  call chkok(ierr, 'mpi_comm_spawn')
  if (myrank == 0) then
    call chki('errcodes(1)', errcodes(1), MPI_SUCCESS)
    call chki('errcodes(2)', errcodes(2), MPI_SUCCESS)
    do i = 0, 1
      v = 10 + i
      call mpi_send(v, 1, MPI_INTEGER, i, 1, inter, ierr)
    end do
    do i = 0, 1
      call mpi_recv(v, 1, MPI_INTEGER, i, 2, inter, MPI_STATUS_IGNORE, ierr)
      call chki('answer of a child', v, 2 * (10 + i))
      call mpi_recv(cerr, 1, MPI_INTEGER, i, 3, inter, MPI_STATUS_IGNORE, ierr)
      call chki('errors of a child', cerr, 0)
    end do
  end if
  call mpi_comm_disconnect(inter, ierr)
  call chkok(ierr, 'mpi_comm_disconnect')

  ! mpi_comm_spawn_multiple: two commands, one process each
  cmds(1) = exe
  cmds(2) = exe
  argvs(1, 1) = 'multi0'
  argvs(2, 1) = 'multi1'
  argvs(1, 2) = ' '
  argvs(2, 2) = ' '
  maxprocs = (/ 1, 1 /)
  infos = (/ MPI_INFO_NULL, MPI_INFO_NULL /)
  call mpi_comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, inter, &
                               MPI_ERRCODES_IGNORE, ierr)
  call chkok(ierr, 'mpi_comm_spawn_multiple')
  if (myrank == 0) then
    do i = 0, 1
      call mpi_recv(cerr, 1, MPI_INTEGER, i, 3, inter, MPI_STATUS_IGNORE, ierr)
      call chki('errors of a spawn_multiple child', cerr, 0)
    end do
  end if
  call mpi_comm_disconnect(inter, ierr)
  call fcfinish()

contains

  subroutine child()
    integer :: rank, e
    e = 0
    call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
    arg1 = ' '
    arg2 = ' '
    if (argc >= 1) call get_command_argument(1, arg1)
    if (argc >= 2) call get_command_argument(2, arg2)
    if (arg1 == 'child') then
      if (argc /= 2 .or. arg2 /= 'x y') then
        print *, 'child: arguments ', argc, ' ', trim(arg1), '|', trim(arg2)
        e = e + 1
      end if
      call mpi_recv(v, 1, MPI_INTEGER, 0, 1, parent, MPI_STATUS_IGNORE, ierr)
      if (v /= 10 + rank) e = e + 1
      v = 2 * v
      call mpi_send(v, 1, MPI_INTEGER, 0, 2, parent, ierr)
    else
      call mpi_comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, flag, ierr)
      appnum_flag = 0
      if (flag) appnum_flag = 1
      if (appnum_flag /= 1 .or. argc /= 1) then
        e = e + 1
      else if ((appnum == 0 .and. arg1 /= 'multi0') .or. &
               (appnum == 1 .and. arg1 /= 'multi1')) then
        print *, 'spawn_multiple child: appnum ', appnum, ' argument ', trim(arg1)
        e = e + 1
      end if
    end if
    call mpi_send(e, 1, MPI_INTEGER, 0, 3, parent, ierr)
    call mpi_comm_disconnect(parent, ierr)
    call mpi_finalize(ierr)
  end subroutine child
end program f_spawn
