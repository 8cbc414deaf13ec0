module cmd

go 1.19
