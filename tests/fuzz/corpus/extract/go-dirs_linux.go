//go:build linux

package main

import (
	"os"
	"path/filepath"
)

func dataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "shop")
	}
	return filepath.Join(os.Getenv("HOME"), ".local", "share", "shop")
}
