! SPDX-License-Identifier: MIT
!
! Environment, errors and info through "use mpi": mpi_initialized and
! mpi_finalized (LOGICAL, before init, after init and after finalize),
! mpi_init_thread with MPI_THREAD_FUNNELED (provided is one of the four
! levels; the standard allows it above or below the request),
! mpi_query_thread, mpi_is_thread_main, mpi_get_version against
! MPI_VERSION/MPI_SUBVERSION, mpi_wtick, mpi_get_processor_name,
! mpi_comm_get_attr(MPI_TAG_UB) with an INTEGER(KIND=MPI_ADDRESS_KIND)
! value, MPI_ERRORS_RETURN on MPI_COMM_WORLD with a send to an invalid
! rank (error class MPI_ERR_RANK, mpi_error_string), a Fortran error
! handler from mpi_comm_create_errhandler called on an error and by
! mpi_comm_call_errhandler, and the info calls (create, set, get,
! get_nkeys, get_nthkey, get_valuelen, delete, dup, free) with their
! blank-padded Fortran strings.
!
! The checks, the start and the end are those of fcheck.f90 (module
! fcheck); the checks after mpi_finalize are counted by each rank
! itself.
!
! Ranks: any count >= 2 (validated at 2, 3 and 4).
!
module ftest
  use fcheck
  implicit none
  ! what the user error handler saw
  integer :: eh_calls = 0, eh_comm = -1, eh_code = -1
contains
  ! s(from:) holds only blanks
  logical function blank_from(s, from)
    character(len=*), intent(in) :: s
    integer, intent(in) :: from
    integer :: i
    blank_from = .true.
    do i = max(from, 1), len(s)
      if (s(i:i) /= ' ') blank_from = .false.
    end do
  end function blank_from

  ! A string that an MPI call wrote into s (declared with the maximum
  ! length for it), with its length rlen: 1 to len(s) characters, not
  ! all blank, and blank padded after them.
  subroutine chkret(what, s, rlen)
    character(len=*), intent(in) :: what, s
    integer, intent(in) :: rlen
    call chkl(what // ' length > 0', rlen > 0, .true.)
    call chkl(what // ' length <= its maximum', rlen <= len(s), .true.)
    if (rlen > 0 .and. rlen <= len(s)) then
      call chkl(what // ' nonblank', len_trim(s(1:rlen)) > 0, .true.)
      call chkl(what // ' blank padded', blank_from(s, rlen + 1), .true.)
    end if
  end subroutine chkret

  ! The user error handler: MPI's COMM_ERRHANDLER_FUNCTION(COMM,
  ! ERROR_CODE) in Fortran. It records what it got and returns.
  subroutine handler(comm, errcode)
    integer :: comm, errcode
    eh_calls = eh_calls + 1
    eh_comm = comm
    eh_code = errcode
  end subroutine handler
end module ftest

program f_misc
  use mpi
  use fcheck
  use ftest
  implicit none
  integer :: ierr, provided, toterr, posterr

  ! allowed before init
  call chkstate('before init', .false., .false.)

  provided = -1
  call mpi_init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call chkok(ierr, 'mpi_init_thread')
  call fcstart('f_misc', 2, huge(nprocs))

  call t_env(provided)
  call t_errors()
  call t_userhandler()
  call t_info()

  call fcsum(toterr)
  call mpi_finalize(ierr)
  ! after finalize each rank checks on its own; rank 0 counts its own
  ! result, the others fail through their exit status
  posterr = nerr
  call chkstate('after finalize', .true., .true.)
  posterr = nerr - posterr
  call fcreport(toterr + posterr)

contains

  ! mpi_initialized and mpi_finalized (when: before init, after init,
  ! after finalize) give init and fini.
  subroutine chkstate(when, init, fini)
    character(len=*), intent(in) :: when
    logical, intent(in) :: init, fini
    integer :: ierr
    logical :: flag

    flag = .not. init
    call mpi_initialized(flag, ierr)
    call chkok(ierr, 'mpi_initialized ' // when)
    call chkl('mpi_initialized ' // when, flag, init)
    flag = .not. fini
    call mpi_finalized(flag, ierr)
    call chkok(ierr, 'mpi_finalized ' // when)
    call chkl('mpi_finalized ' // when, flag, fini)
  end subroutine chkstate

  ! Initialization state, thread level, version, clock, processor
  ! name, the TAG_UB attribute.
  subroutine t_env(provided)
    integer, intent(in) :: provided
    integer :: ierr, q, ver, subver, rlen
    logical :: flag, valid
    double precision :: tick
    character(len=MPI_MAX_PROCESSOR_NAME) :: pname
    integer(kind=MPI_ADDRESS_KIND) :: val

    call chkstate('after init', .true., .false.)

    call chkl('thread levels ordered', MPI_THREAD_SINGLE < &
         MPI_THREAD_FUNNELED .and. MPI_THREAD_FUNNELED < &
         MPI_THREAD_SERIALIZED .and. MPI_THREAD_SERIALIZED < &
         MPI_THREAD_MULTIPLE, .true.)
    valid = provided == MPI_THREAD_SINGLE .or. &
         provided == MPI_THREAD_FUNNELED .or. &
         provided == MPI_THREAD_SERIALIZED .or. &
         provided == MPI_THREAD_MULTIPLE
    call chkl('provided is a thread level', valid, .true.)
    q = -1
    call mpi_query_thread(q, ierr)
    call chkok(ierr, 'mpi_query_thread')
    call chki('query_thread returns provided', q, provided)
    flag = .false.
    call mpi_is_thread_main(flag, ierr)
    call chkl('mpi_is_thread_main', flag, .true.)

    ver = -1
    subver = -1
    call mpi_get_version(ver, subver, ierr)
    call chkok(ierr, 'mpi_get_version')
    ! in an ABI run the library may implement another version than the
    ! module says; it must still be a real one
    if (.not. abi_run) then
      call chki('get_version: version = MPI_VERSION', ver, MPI_VERSION)
      call chki('get_version: subversion = MPI_SUBVERSION', subver, &
           MPI_SUBVERSION)
    end if
    call chkl('MPI version >= 3', ver >= 3, .true.)
    call chkl('MPI subversion >= 0', subver >= 0, .true.)

    tick = mpi_wtick()
    call chkl('mpi_wtick > 0', tick > 0.0d0, .true.)
    call chkl('mpi_wtick < 1', tick < 1.0d0, .true.)

    pname = repeat('#', len(pname))
    rlen = -1
    call mpi_get_processor_name(pname, rlen, ierr)
    call chkok(ierr, 'mpi_get_processor_name')
    call chkret('processor name', pname, rlen)
    if (rlen > 0 .and. rlen <= len(pname)) &
         call chkl('processor name has no # (written up to its length)', &
         index(pname(1:rlen), '#') == 0, .true.)

    val = -1
    flag = .false.
    call mpi_comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
    call chkok(ierr, 'mpi_comm_get_attr')
    call chkl('comm_get_attr(MPI_TAG_UB) flag', flag, .true.)
    call chkl('MPI_TAG_UB >= 32767', val >= 32767_MPI_ADDRESS_KIND, &
         .true.)
    call chkl('MPI_TAG_UB fits in an INTEGER tag', &
         val <= int(huge(ierr), MPI_ADDRESS_KIND), .true.)
  end subroutine t_env

  ! MPI_ERRORS_RETURN on MPI_COMM_WORLD, a send to rank nprocs.
  subroutine t_errors()
    integer :: ierr, err, cls, rlen, v, eh
    character(len=MPI_MAX_ERROR_STRING) :: msg

    call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call chkok(ierr, 'mpi_comm_set_errhandler')
    call mpi_comm_get_errhandler(MPI_COMM_WORLD, eh, ierr)
    call chkok(ierr, 'mpi_comm_get_errhandler')
    call chki('comm_get_errhandler returns MPI_ERRORS_RETURN', eh, &
         MPI_ERRORS_RETURN)
    v = 1
    err = MPI_SUCCESS
    call mpi_send(v, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, err)
    call chkl('send to an invalid rank returns an error', &
         err /= MPI_SUCCESS, .true.)
    cls = -1
    call mpi_error_class(err, cls, ierr)
    call chkok(ierr, 'mpi_error_class')
    call chki('error class of a send to an invalid rank', cls, &
         MPI_ERR_RANK)
    msg = repeat('#', len(msg))
    rlen = -1
    call mpi_error_string(err, msg, rlen, ierr)
    call chkok(ierr, 'mpi_error_string')
    call chkret('error string', msg, rlen)
    ! the class of a class is itself
    call mpi_error_class(MPI_ERR_RANK, cls, ierr)
    call chki('error class of MPI_ERR_RANK', cls, MPI_ERR_RANK)
    call mpi_error_string(MPI_SUCCESS, msg, rlen, ierr)
    call chkl('error string of MPI_SUCCESS nonblank', &
         rlen > 0 .and. len_trim(msg) > 0, .true.)

    ! an invalid tag too, on a receive
    call mpi_recv(v, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, &
         MPI_STATUS_IGNORE, err)
    call mpi_error_class(err, cls, ierr)
    call chki('error class of a receive with tag -5', cls, MPI_ERR_TAG)

    call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, &
         ierr)
    call chkok(ierr, 'set MPI_ERRORS_ARE_FATAL back')
  end subroutine t_errors

  ! A Fortran error handler on a dup of the world: called on an error
  ! with the comm and the code, and by mpi_comm_call_errhandler.
  subroutine t_userhandler()
    integer :: ierr, err, eh, dup, cls, v, got

    call mpi_comm_create_errhandler(handler, eh, ierr)
    call chkok(ierr, 'mpi_comm_create_errhandler')
    call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
    call mpi_comm_set_errhandler(dup, eh, ierr)
    call chkok(ierr, 'set a user errhandler')
    call mpi_comm_get_errhandler(dup, got, ierr)
    call chki('comm_get_errhandler returns the user handler', got, eh)
    call mpi_errhandler_free(got, ierr)

    eh_calls = 0
    v = 7
    err = MPI_SUCCESS
    call mpi_send(v, 1, MPI_INTEGER, nprocs + 3, 0, dup, err)
    call chki('user handler calls after a bad send', eh_calls, 1)
    call chki('user handler: comm argument', eh_comm, dup)
    call mpi_error_class(eh_code, cls, ierr)
    call chki('user handler: class of the code argument', cls, &
         MPI_ERR_RANK)
    call chkl('bad send returns an error after the handler', &
         err /= MPI_SUCCESS, .true.)
    call mpi_error_class(err, cls, ierr)
    call chki('class of the bad send''s return code', cls, MPI_ERR_RANK)

    call mpi_comm_call_errhandler(dup, MPI_ERR_OTHER, ierr)
    call chkok(ierr, 'mpi_comm_call_errhandler')
    call chki('user handler calls after call_errhandler', eh_calls, 2)
    call chki('call_errhandler: code argument', eh_code, MPI_ERR_OTHER)
    call chki('call_errhandler: comm argument', eh_comm, dup)

    call mpi_errhandler_free(eh, ierr)
    call chkok(ierr, 'mpi_errhandler_free')
    call chki('errhandler after free', eh, MPI_ERRHANDLER_NULL)
    ! the comm still holds the handler
    call mpi_comm_call_errhandler(dup, MPI_ERR_ARG, ierr)
    call chki('handler still called after errhandler_free', eh_calls, 3)
    call chki('code after errhandler_free', eh_code, MPI_ERR_ARG)
    call mpi_comm_free(dup, ierr)
  end subroutine t_userhandler

  ! Info objects and their strings.
  subroutine t_info()
    integer :: info, info2, ierr, nkeys, vlen, i, n1, n2
    logical :: flag
    character(len=MPI_MAX_INFO_KEY) :: key
    character(len=MPI_MAX_INFO_VAL) :: val
    character(len=5) :: short

    call mpi_info_create(info, ierr)
    call chkok(ierr, 'mpi_info_create')
    call mpi_info_get_nkeys(info, nkeys, ierr)
    call chki('nkeys of a new info', nkeys, 0)
    call mpi_info_set(info, 'key1', 'value one', ierr)
    call chkok(ierr, 'mpi_info_set')
    call mpi_info_set(info, 'second_key', '42', ierr)
    ! trailing blanks of key and value are not part of them
    call mpi_info_set(info, 'key3   ', 'abc   ', ierr)
    call mpi_info_get_nkeys(info, nkeys, ierr)
    call chkok(ierr, 'mpi_info_get_nkeys')
    call chki('nkeys after three sets', nkeys, 3)

    val = repeat('#', len(val))
    flag = .false.
    call mpi_info_get(info, 'key1', MPI_MAX_INFO_VAL, val, flag, ierr)
    call chkok(ierr, 'mpi_info_get')
    call chkl('info_get flag of key1', flag, .true.)
    call chks('info_get value of key1', val(1:9), 'value one')
    call chkl('info_get value blank padded', blank_from(val, 10), .true.)
    val = repeat('#', len(val))
    call mpi_info_get(info, 'key3', MPI_MAX_INFO_VAL, val, flag, ierr)
    call chkl('info_get flag of key3 (set with trailing blanks)', flag, &
         .true.)
    call chks('info_get value of key3', trim(val), 'abc')
    ! a valuelen that fits the value exactly
    short = '#####'
    call mpi_info_get(info, 'second_key', 2, short, flag, ierr)
    call chkl('info_get with valuelen 2: flag', flag, .true.)
    call chks('info_get with valuelen 2: value', short(1:2), '42')
    val = 'untouched'
    flag = .true.
    call mpi_info_get(info, 'nokey', MPI_MAX_INFO_VAL, val, flag, ierr)
    call chkl('info_get flag of a missing key', flag, .false.)
    call chks('info_get of a missing key leaves the value', trim(val), &
         'untouched')

    vlen = -1
    flag = .false.
    call mpi_info_get_valuelen(info, 'key1', vlen, flag, ierr)
    call chkok(ierr, 'mpi_info_get_valuelen')
    call chkl('info_get_valuelen flag', flag, .true.)
    call chki('info_get_valuelen of key1', vlen, 9)
    call mpi_info_get_valuelen(info, 'second_key', vlen, flag, ierr)
    call chki('info_get_valuelen of second_key', vlen, 2)
    flag = .true.
    call mpi_info_get_valuelen(info, 'nokey', vlen, flag, ierr)
    call chkl('info_get_valuelen flag of a missing key', flag, .false.)

    ! nthkey: every key once, blank padded (the order is not fixed)
    n1 = 0
    n2 = 0
    do i = 0, 2
      key = repeat('#', len(key))
      call mpi_info_get_nthkey(info, i, key, ierr)
      call chkok(ierr, 'mpi_info_get_nthkey')
      call chkl('nthkey blank padded', &
           blank_from(key, len_trim(key) + 1) .and. &
           index(key, '#') == 0, .true.)
      if (key == 'key1') n1 = n1 + 1
      if (key == 'second_key') n2 = n2 + 1
      if (key /= 'key1' .and. key /= 'second_key' .and. key /= 'key3') &
           call chks('nthkey gave an unknown key', trim(key), &
           'key1, second_key or key3')
    end do
    call chki('nthkey gave key1 once', n1, 1)
    call chki('nthkey gave second_key once', n2, 1)

    call mpi_info_dup(info, info2, ierr)
    call chkok(ierr, 'mpi_info_dup')
    call mpi_info_delete(info, 'key1', ierr)
    call chkok(ierr, 'mpi_info_delete')
    call mpi_info_get_nkeys(info, nkeys, ierr)
    call chki('nkeys after a delete', nkeys, 2)
    call mpi_info_get(info, 'key1', MPI_MAX_INFO_VAL, val, flag, ierr)
    call chkl('info_get of a deleted key', flag, .false.)
    ! the dup keeps its own copy
    call mpi_info_get_nkeys(info2, nkeys, ierr)
    call chki('nkeys of the dup after a delete in the original', nkeys, 3)
    call mpi_info_get(info2, 'key1', MPI_MAX_INFO_VAL, val, flag, ierr)
    call chkl('info_get from the dup', flag, .true.)
    call chks('value from the dup', trim(val), 'value one')
    ! setting an existing key replaces its value
    call mpi_info_set(info2, 'second_key', 'forty-two', ierr)
    call mpi_info_get(info2, 'second_key', MPI_MAX_INFO_VAL, val, flag, &
         ierr)
    call chks('value after a second set', trim(val), 'forty-two')

    call mpi_info_free(info, ierr)
    call chkok(ierr, 'mpi_info_free')
    call chki('info after free', info, MPI_INFO_NULL)
    call mpi_info_free(info2, ierr)
    call chki('dup info after free', info2, MPI_INFO_NULL)
  end subroutine t_info

end program f_misc
