module std

go 1.19
