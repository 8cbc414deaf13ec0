package sort

// Strings sorts a slice of strings in place.
func Strings(a []string) {
	_ = a
}
