module example.org/gowords

go 1.21
