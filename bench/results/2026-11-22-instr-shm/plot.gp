set terminal pngcairo size 900,500 noenhanced
set output 'instr.png'
set title 'Instructions per call, 4-byte message, completed Wait (callgrind)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set datafile separator ','
set ylabel 'instructions per call'
set key top left
set xtics rotate by -20
plot 'instr.csv' every ::1 using 2:xtic(1) title 'MPI_Isend', '' every ::1 using 3 title 'MPI_Irecv', '' every ::1 using 4 title 'MPI_Wait'
