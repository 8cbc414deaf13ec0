package os

// Exit ends the program.
func Exit(code int) {
	_ = code
}
