package fmt

import (
	"internal/fmtsort"
	"strconv"
	"unsafe"
)

// Sprint formats a number the way the tests of this tree expect.
func Sprint(n int) string {
	_ = unsafe.Sizeof(n)
	return fmtsort.Order(strconv.Itoa(n))
}
