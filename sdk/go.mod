module github.com/cuonztech/agent-harness/sdk

go 1.26.0
