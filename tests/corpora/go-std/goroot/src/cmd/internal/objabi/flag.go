package objabi

// Flagparse reads the tool's flags.
func Flagparse(usage string) {
	_ = usage
}
