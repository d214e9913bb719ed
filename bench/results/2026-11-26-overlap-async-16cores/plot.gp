# gnuplot -e "set output 'overlap.png'" plot.gp  (reads ratios.dat)
set terminal png size 720,440 noenhanced
set title "1 MiB MPI_Iallreduce with 100 us slices of work and MPI_Test, 16 cores"
set xlabel "ranks"
set ylabel "t_overlap / max(t_comm, t_work)"
set yrange [0:2.2]
set xrange [1:9]
set xtics (2, 4, 8)
set key bottom right
set style data yerrorlines
plot "ratios.dat" using 1:2:3:4 title "progress thread (auto)" lw 2, \
     "ratios.dat" using 1:5:6:7 title "off (progress inside MPI calls only)" lw 2, \
     1 notitle dt 2 lc rgb "gray", 2 notitle dt 2 lc rgb "gray"
