package reportfile

import "syscall"

// pseudoFSMagic maps statfs f_type values of kernel pseudo file systems,
// whose entries look like regular files but are not storage, to names.
var pseudoFSMagic = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x1cd1:     "devpts",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0x62656570: "configfs",
	0xcafe4a11: "bpf",
	0x6165676c: "pstore",
	0xde5e81e4: "efivarfs",
	0x65735543: "fusectl",
}

// pseudoFS reports whether dir is on a kernel pseudo file system.
func pseudoFS(dir string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "", false
	}
	name, ok := pseudoFSMagic[int64(st.Type)]
	return name, ok
}
