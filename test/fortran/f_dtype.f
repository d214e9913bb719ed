! SPDX-License-Identifier: MIT
!
! Derived datatypes through the F77 bindings (fixed form, include
! 'mpif.h'): type_contiguous, type_vector, type_commit, type_size,
! type_get_extent (INTEGER(KIND=MPI_ADDRESS_KIND) lb and extent),
! mpi_get_address and type_create_struct over a common block, sends of
! these types, the MPI-1 calls mpi_address (INTEGER addresses, used
! only as small differences) and mpi_type_struct, a send and a receive
! with MPI_BOTTOM as the buffer and absolute addresses in the type,
! MPI_CHARACTER, mpi_pack/mpi_unpack/mpi_pack_size with MPI_PACKED,
! get_count and get_elements (also for a partial element), type_free.
!
! Messages go between the ranks of a pair (0,1), (2,3), ...: the even
! rank sends, the odd one receives; with an odd rank count the last rank
! runs only the local checks.
!
! The checks (chki, chka, chkd, chkl, chks), the start and the end come
! from fcheck.f90, whose common block /ferrs/ holds myrank and nprocs.
!
! Ranks: any count >= 2 (validated at 2, 3 and 4).
!
      program f_dtype
      implicit none
      include 'mpif.h'
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer ierr, partner

      call mpi_init(ierr)
      call fcstart('f_dtype', 2, huge(nprocs))
      partner = ieor(myrank, 1)
      if (partner .ge. nprocs) partner = MPI_PROC_NULL

      call tcontig(partner)
      call tvector(partner)
      call tstruct(partner)
      call tmpi1(partner)
      call tbottom(partner)
      call tchar(partner)
      call tpack(partner)
      call fcfinish
      end

! ---------------------------------------------------------------------
! A contiguous type of 5 INTEGERs: size, extent, a send of 2 of them
! received as INTEGERs, get_count/get_elements with both types, and a
! partial element (7 INTEGERs received as the contiguous type).
! ---------------------------------------------------------------------
      subroutine tcontig(partner)
      implicit none
      include 'mpif.h'
      integer partner
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer ctype, sz, ierr, i, cnt, a(12), b(12)
      integer status(MPI_STATUS_SIZE)
      integer(kind=MPI_ADDRESS_KIND) lb, extent

      call mpi_type_contiguous(5, MPI_INTEGER, ctype, ierr)
      call chki('mpi_type_contiguous ierr', ierr, MPI_SUCCESS)
      call mpi_type_commit(ctype, ierr)
      call chki('mpi_type_commit ierr', ierr, MPI_SUCCESS)
      call mpi_type_size(ctype, sz, ierr)
      call chki('type_size of contiguous(5, INTEGER)', sz, 20)
      lb = -1
      extent = -1
      call mpi_type_get_extent(ctype, lb, extent, ierr)
      call chki('mpi_type_get_extent ierr', ierr, MPI_SUCCESS)
      call chka('lb of contiguous(5, INTEGER)', lb,
     &     int(0, MPI_ADDRESS_KIND))
      call chka('extent of contiguous(5, INTEGER)', extent,
     &     int(20, MPI_ADDRESS_KIND))
      call mpi_type_get_extent(MPI_DOUBLE_PRECISION, lb, extent, ierr)
      call chka('extent of MPI_DOUBLE_PRECISION', extent,
     &     int(8, MPI_ADDRESS_KIND))

      if (partner .ne. MPI_PROC_NULL) then
         do i = 1, 12
            a(i) = 10 * i
            b(i) = -1
         enddo
         if (mod(myrank, 2) .eq. 0) then
            call mpi_send(a, 2, ctype, partner, 1, MPI_COMM_WORLD,
     &           ierr)
            call mpi_send(a, 7, MPI_INTEGER, partner, 2,
     &           MPI_COMM_WORLD, ierr)
         else
            call mpi_recv(b, 12, MPI_INTEGER, partner, 1,
     &           MPI_COMM_WORLD, status, ierr)
            call mpi_get_count(status, MPI_INTEGER, cnt, ierr)
            call chki('get_count (INTEGER) of 2 contiguous(5)', cnt,
     &           10)
            call mpi_get_count(status, ctype, cnt, ierr)
            call chki('get_count (contiguous) of 2 contiguous(5)', cnt,
     &           2)
            call mpi_get_elements(status, ctype, cnt, ierr)
            call chki('mpi_get_elements ierr', ierr, MPI_SUCCESS)
            call chki('get_elements of 2 contiguous(5)', cnt, 10)
            do i = 1, 12
               if (i .le. 10) then
                  call chki('contiguous data', b(i), 10 * i)
               else
                  call chki('contiguous: past the message', b(i), -1)
               endif
            enddo
!           7 INTEGERs into contiguous(5): one whole element and a part
            do i = 1, 12
               b(i) = -1
            enddo
            call mpi_recv(b, 2, ctype, partner, 2, MPI_COMM_WORLD,
     &           status, ierr)
            call mpi_get_count(status, ctype, cnt, ierr)
            call chki('get_count of 7 INTEGERs as contiguous(5)', cnt,
     &           MPI_UNDEFINED)
            call mpi_get_elements(status, ctype, cnt, ierr)
            call chki('get_elements of 7 INTEGERs as contiguous(5)',
     &           cnt, 7)
            call chki('partial element data', b(7), 70)
            call chki('partial element: past the message', b(8), -1)
         endif
      endif
      call mpi_type_free(ctype, ierr)
      call chki('mpi_type_free ierr', ierr, MPI_SUCCESS)
      call chki('type after type_free', ctype, MPI_DATATYPE_NULL)
      end

! ---------------------------------------------------------------------
! type_vector(4, 2, 5, DOUBLE PRECISION): elements 1,2,6,7,11,12,16,17
! of an array. Sent as the vector, received once contiguously and once
! as the vector into a second array (the holes stay untouched).
! ---------------------------------------------------------------------
      subroutine tvector(partner)
      implicit none
      include 'mpif.h'
      integer partner
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer vtype, sz, ierr, i, cnt, k
      integer status(MPI_STATUS_SIZE)
      integer(kind=MPI_ADDRESS_KIND) lb, extent
      double precision a(20), b(20), dexp
      logical inv

      call mpi_type_vector(4, 2, 5, MPI_DOUBLE_PRECISION, vtype, ierr)
      call chki('mpi_type_vector ierr', ierr, MPI_SUCCESS)
      call mpi_type_commit(vtype, ierr)
      call mpi_type_size(vtype, sz, ierr)
      call chki('type_size of vector(4,2,5,DOUBLE)', sz, 64)
      call mpi_type_get_extent(vtype, lb, extent, ierr)
      call chka('lb of vector(4,2,5,DOUBLE)', lb,
     &     int(0, MPI_ADDRESS_KIND))
      call chka('extent of vector(4,2,5,DOUBLE)', extent,
     &     int(17 * 8, MPI_ADDRESS_KIND))

      if (partner .ne. MPI_PROC_NULL) then
         do i = 1, 20
            a(i) = dble(i) + 0.5d0
            b(i) = -1.0d0
         enddo
         if (mod(myrank, 2) .eq. 0) then
            call mpi_send(a, 1, vtype, partner, 3, MPI_COMM_WORLD,
     &           ierr)
            call mpi_send(a(2), 1, vtype, partner, 4, MPI_COMM_WORLD,
     &           ierr)
         else
            call mpi_recv(b, 20, MPI_DOUBLE_PRECISION, partner, 3,
     &           MPI_COMM_WORLD, status, ierr)
            call mpi_get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
            call chki('get_count of a vector as DOUBLE', cnt, 8)
            do k = 0, 3
               do i = 1, 2
                  call chkd('vector received contiguously',
     &                 b(2 * k + i), dble(5 * k + i) + 0.5d0)
               enddo
            enddo
            call chkd('vector: past the message', b(9), -1.0d0)
!           a(2) as the start: elements 2,3,7,8,12,13,17,18 land at
!           1,2,6,7,11,12,16,17 in b
            do i = 1, 20
               b(i) = -1.0d0
            enddo
            call mpi_recv(b, 1, vtype, partner, 4, MPI_COMM_WORLD,
     &           status, ierr)
            call mpi_get_elements(status, vtype, cnt, ierr)
            call chki('get_elements of a vector', cnt, 8)
            do i = 1, 20
               k = mod(i - 1, 5)
               inv = k .le. 1 .and. i .le. 17
               dexp = -1.0d0
               if (inv) dexp = dble(i + 1) + 0.5d0
               call chkd('vector received as the vector', b(i), dexp)
            enddo
         endif
      endif
      call mpi_type_free(vtype, ierr)
      call chki('vector type after type_free', vtype,
     &     MPI_DATATYPE_NULL)
      end

! v = (a, b, c): the block lengths or the types of a struct of three
      subroutine set3(v, a, b, c)
      implicit none
      integer v(3), a, b, c
      v(1) = a
      v(2) = b
      v(3) = c
      end

! ---------------------------------------------------------------------
! type_create_struct over a common block (a storage sequence, so the
! differences of mpi_get_address are known: 24 and 28 bytes) of 3
! DOUBLE PRECISION, 1 INTEGER and 1 LOGICAL.
! ---------------------------------------------------------------------
      subroutine tstruct(partner)
      implicit none
      include 'mpif.h'
      integer partner
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      double precision sd(3)
      integer si
      logical sl
      common /srec/ sd, si, sl
      integer stype, sz, ierr, i, cnt
      integer blens(3), types(3), status(MPI_STATUS_SIZE)
      integer(kind=MPI_ADDRESS_KIND) disps(3), base, lb, extent

      call mpi_get_address(sd, base, ierr)
      call chki('mpi_get_address ierr', ierr, MPI_SUCCESS)
      call mpi_get_address(sd(1), disps(1), ierr)
      call mpi_get_address(si, disps(2), ierr)
      call mpi_get_address(sl, disps(3), ierr)
      do i = 1, 3
         disps(i) = disps(i) - base
      enddo
      call chka('get_address: sd(1) - sd', disps(1),
     &     int(0, MPI_ADDRESS_KIND))
      call chka('get_address: si - sd (common block)', disps(2),
     &     int(24, MPI_ADDRESS_KIND))
      call chka('get_address: sl - sd (common block)', disps(3),
     &     int(28, MPI_ADDRESS_KIND))
      call set3(blens, 3, 1, 1)
      call set3(types, MPI_DOUBLE_PRECISION, MPI_INTEGER, MPI_LOGICAL)
      call mpi_type_create_struct(3, blens, disps, types, stype, ierr)
      call chki('mpi_type_create_struct ierr', ierr, MPI_SUCCESS)
      call mpi_type_commit(stype, ierr)
      call mpi_type_size(stype, sz, ierr)
      call chki('type_size of the struct', sz, 32)
      call mpi_type_get_extent(stype, lb, extent, ierr)
      call chka('lb of the struct', lb, int(0, MPI_ADDRESS_KIND))
      call chka('extent of the struct', extent,
     &     int(32, MPI_ADDRESS_KIND))

      if (partner .ne. MPI_PROC_NULL) then
         if (mod(myrank, 2) .eq. 0) then
            do i = 1, 3
               sd(i) = dble(i) * 0.125d0 + dble(myrank)
            enddo
            si = 4711 + myrank
            sl = .true.
            call mpi_send(sd, 1, stype, partner, 5, MPI_COMM_WORLD,
     &           ierr)
         else
            do i = 1, 3
               sd(i) = -1.0d0
            enddo
            si = -1
            sl = .false.
            call mpi_recv(sd, 1, stype, partner, 5, MPI_COMM_WORLD,
     &           status, ierr)
            call chki('recv of the struct ierr', ierr, MPI_SUCCESS)
            call mpi_get_count(status, stype, cnt, ierr)
            call chki('get_count of the struct', cnt, 1)
            call mpi_get_elements(status, stype, cnt, ierr)
            call chki('get_elements of the struct', cnt, 5)
            do i = 1, 3
               call chkd('struct: DOUBLE PRECISION part', sd(i),
     &              dble(i) * 0.125d0 + dble(partner))
            enddo
            call chki('struct: INTEGER part', si, 4711 + partner)
            call chkl('struct: LOGICAL part', sl, .true.)
         endif
      endif
      call mpi_type_free(stype, ierr)
      end

! ---------------------------------------------------------------------
! The MPI-1 calls: mpi_address gives INTEGER addresses (only their
! difference is used: it is small, even where the addresses were cut
! to fit) and mpi_type_struct takes INTEGER displacements.
! ---------------------------------------------------------------------
      subroutine tmpi1(partner)
      implicit none
      include 'mpif.h'
      integer partner
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      double precision td(2)
      integer ti(3)
      common /trec/ td, ti
      integer ttype, sz, ierr, i, ia(2), idisp(2)
      integer blens(2), types(2), status(MPI_STATUS_SIZE)
      integer(kind=MPI_ADDRESS_KIND) aa
      logical fits

!     an address that does not fit in an INTEGER may come with an
!     error code (MPICH returns MPI_ERR_OTHER then), and must not
!     otherwise
      call mpi_get_address(td, aa, ierr)
      fits = aa .ge. -huge(ia(1)) .and. aa .le. huge(ia(1))
      call mpi_address(td, ia(1), ierr)
      if (fits) call chki('mpi_address ierr', ierr, MPI_SUCCESS)
      call mpi_address(ti(1), ia(2), ierr)
      idisp(1) = 0
      idisp(2) = ia(2) - ia(1)
      call chki('mpi_address: ti - td (common block)', idisp(2), 16)
      blens(1) = 2
      blens(2) = 3
      types(1) = MPI_DOUBLE_PRECISION
      types(2) = MPI_INTEGER
      call mpi_type_struct(2, blens, idisp, types, ttype, ierr)
      call chki('mpi_type_struct ierr', ierr, MPI_SUCCESS)
      call mpi_type_commit(ttype, ierr)
      call mpi_type_size(ttype, sz, ierr)
      call chki('type_size of the MPI-1 struct', sz, 28)

      if (partner .ne. MPI_PROC_NULL) then
         if (mod(myrank, 2) .eq. 0) then
            td(1) = 1.0d0 / 3.0d0
            td(2) = -2.0d0
            do i = 1, 3
               ti(i) = 100 + i
            enddo
            call mpi_send(td, 1, ttype, partner, 6, MPI_COMM_WORLD,
     &           ierr)
         else
            td(1) = 0.0d0
            td(2) = 0.0d0
            do i = 1, 3
               ti(i) = -1
            enddo
            call mpi_recv(td, 1, ttype, partner, 6, MPI_COMM_WORLD,
     &           status, ierr)
            call chkd('MPI-1 struct: td(1)', td(1), 1.0d0 / 3.0d0)
            call chkd('MPI-1 struct: td(2)', td(2), -2.0d0)
            do i = 1, 3
               call chki('MPI-1 struct: ti', ti(i), 100 + i)
            enddo
         endif
      endif
      call mpi_type_free(ttype, ierr)
      end

! ---------------------------------------------------------------------
! MPI_BOTTOM: a struct of absolute addresses of three unrelated
! variables, sent and received with MPI_BOTTOM as the buffer. They are
! in three common blocks: the compiler sees no use of them in the
! calls, so as locals it could drop the stores before the send or keep
! stale values after the receive (MPI-3.1 17.1.17, MPI_BOTTOM).
! ---------------------------------------------------------------------
      subroutine tbottom(partner)
      implicit none
      include 'mpif.h'
      integer partner
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer iv(2)
      double precision dv
      real rv(3)
      common /bot1/ rv
      common /bot2/ dv
      common /bot3/ iv
      integer btype, ierr, i, cnt
      integer blens(3), types(3), status(MPI_STATUS_SIZE)
      integer(kind=MPI_ADDRESS_KIND) addrs(3)

      if (partner .eq. MPI_PROC_NULL) return
      call mpi_get_address(rv, addrs(1), ierr)
      call mpi_get_address(dv, addrs(2), ierr)
      call mpi_get_address(iv, addrs(3), ierr)
      call set3(blens, 3, 1, 2)
      call set3(types, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_INTEGER)
      call mpi_type_create_struct(3, blens, addrs, types, btype, ierr)
      call mpi_type_commit(btype, ierr)
      if (mod(myrank, 2) .eq. 0) then
         do i = 1, 3
            rv(i) = real(i) * 1.5
         enddo
         dv = 2.0d0 ** 40
         iv(1) = -12345
         iv(2) = 54321
         call mpi_send(MPI_BOTTOM, 1, btype, partner, 7,
     &        MPI_COMM_WORLD, ierr)
         call chki('send from MPI_BOTTOM ierr', ierr, MPI_SUCCESS)
      else
         do i = 1, 3
            rv(i) = 0.0
         enddo
         dv = 0.0d0
         iv(1) = 0
         iv(2) = 0
         call mpi_recv(MPI_BOTTOM, 1, btype, partner, 7,
     &        MPI_COMM_WORLD, status, ierr)
         call chki('recv into MPI_BOTTOM ierr', ierr, MPI_SUCCESS)
         call mpi_get_elements(status, btype, cnt, ierr)
         call chki('get_elements of the MPI_BOTTOM struct', cnt, 6)
         do i = 1, 3
            call chkd('MPI_BOTTOM: REAL part', dble(rv(i)),
     &           dble(i) * 1.5d0)
         enddo
         call chkd('MPI_BOTTOM: DOUBLE PRECISION part', dv,
     &        2.0d0 ** 40)
         call chki('MPI_BOTTOM: INTEGER part (1)', iv(1), -12345)
         call chki('MPI_BOTTOM: INTEGER part (2)', iv(2), 54321)
      endif
      call mpi_type_free(btype, ierr)
      end

! ---------------------------------------------------------------------
! A CHARACTER string as MPI_CHARACTER, received into a longer one.
! ---------------------------------------------------------------------
      subroutine tchar(partner)
      implicit none
      include 'mpif.h'
      integer partner
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      character*12 s
      character*16 r
      integer ierr, cnt, status(MPI_STATUS_SIZE)

      if (partner .eq. MPI_PROC_NULL) return
      if (mod(myrank, 2) .eq. 0) then
         s = 'Hello, MPI! '
         call mpi_send(s, 12, MPI_CHARACTER, partner, 8,
     &        MPI_COMM_WORLD, ierr)
      else
         r = '****************'
         call mpi_recv(r, 16, MPI_CHARACTER, partner, 8,
     &        MPI_COMM_WORLD, status, ierr)
         call mpi_get_count(status, MPI_CHARACTER, cnt, ierr)
         call chki('get_count of MPI_CHARACTER', cnt, 12)
         call chks('MPI_CHARACTER data', r, 'Hello, MPI! ****')
      endif
      end

! ---------------------------------------------------------------------
! mpi_pack_size, mpi_pack into a CHARACTER buffer, a send as
! MPI_PACKED, mpi_unpack; positions checked on both sides.
! ---------------------------------------------------------------------
      subroutine tpack(partner)
      implicit none
      include 'mpif.h'
      integer partner
      integer nerr, myrank, nprocs
      common /ferrs/ nerr, myrank, nprocs
      integer psize
      parameter (psize = 256)
      character pbuf(psize)
      integer ia(3), ib(3), ierr, i, pos, s1, s2, cnt
      double precision da(2), db(2)
      logical la, lb
      integer status(MPI_STATUS_SIZE)

      call mpi_pack_size(3, MPI_INTEGER, MPI_COMM_WORLD, s1, ierr)
      call chki('mpi_pack_size ierr', ierr, MPI_SUCCESS)
      call chkl('pack_size of 3 INTEGERs >= 12', s1 .ge. 12, .true.)
      call mpi_pack_size(2, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, s2,
     &     ierr)
      call chkl('pack_size of 2 DOUBLEs >= 16', s2 .ge. 16, .true.)
      if (partner .eq. MPI_PROC_NULL) return

      if (mod(myrank, 2) .eq. 0) then
         do i = 1, 3
            ia(i) = -i * 1000
         enddo
         da(1) = 3.25d0
         da(2) = -1.0d-3
         la = .true.
         pos = 0
         call mpi_pack(ia, 3, MPI_INTEGER, pbuf, psize, pos,
     &        MPI_COMM_WORLD, ierr)
         call chki('mpi_pack ierr', ierr, MPI_SUCCESS)
         call chkl('position after packing 3 INTEGERs',
     &        pos .ge. 12 .and. pos .le. s1, .true.)
         call mpi_pack(da, 2, MPI_DOUBLE_PRECISION, pbuf, psize, pos,
     &        MPI_COMM_WORLD, ierr)
         call mpi_pack(la, 1, MPI_LOGICAL, pbuf, psize, pos,
     &        MPI_COMM_WORLD, ierr)
         call mpi_send(pos, 1, MPI_INTEGER, partner, 9,
     &        MPI_COMM_WORLD, ierr)
         call mpi_send(pbuf, pos, MPI_PACKED, partner, 10,
     &        MPI_COMM_WORLD, ierr)
      else
         call mpi_recv(s2, 1, MPI_INTEGER, partner, 9, MPI_COMM_WORLD,
     &        status, ierr)
         call mpi_recv(pbuf, psize, MPI_PACKED, partner, 10,
     &        MPI_COMM_WORLD, status, ierr)
         call mpi_get_count(status, MPI_PACKED, cnt, ierr)
         call chki('get_count of MPI_PACKED: bytes packed', cnt, s2)
         do i = 1, 3
            ib(i) = 0
         enddo
         db(1) = 0.0d0
         db(2) = 0.0d0
         lb = .false.
         pos = 0
         call mpi_unpack(pbuf, cnt, pos, ib, 3, MPI_INTEGER,
     &        MPI_COMM_WORLD, ierr)
         call chki('mpi_unpack ierr', ierr, MPI_SUCCESS)
         call mpi_unpack(pbuf, cnt, pos, db, 2, MPI_DOUBLE_PRECISION,
     &        MPI_COMM_WORLD, ierr)
         call mpi_unpack(pbuf, cnt, pos, lb, 1, MPI_LOGICAL,
     &        MPI_COMM_WORLD, ierr)
         call chki('position after unpacking all', pos, cnt)
         do i = 1, 3
            call chki('unpacked INTEGER', ib(i), -i * 1000)
         enddo
         call chkd('unpacked DOUBLE (1)', db(1), 3.25d0)
         call chkd('unpacked DOUBLE (2)', db(2), -1.0d-3)
         call chkl('unpacked LOGICAL', lb, .true.)
      endif
      end
