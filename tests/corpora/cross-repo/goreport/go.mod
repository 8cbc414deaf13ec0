module example.org/goreport

go 1.21
