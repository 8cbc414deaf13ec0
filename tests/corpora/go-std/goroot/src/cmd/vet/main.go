package main

import (
	"cmd/internal/objabi"
	"fmt"
)

func main() {
	objabi.Flagparse(fmt.Sprint(3))
}
