//go:build !unix

package bench

import "os"

func maxRSS(*os.ProcessState) uint64 { return 0 }
