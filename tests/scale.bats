#!/usr/bin/env bats
# 200 launches at once on a small machine: every status is delivered
# exactly once, every command runs, no process or descriptor is left.

load helpers

setup() {
	requires bwrap python3
}

@test "200 launches at once: 200 success lines, 200 commands, nothing left" {
	body() {
		local d script
		d=$(scratch_dir)
		script=$(unpriv_copy "$BATS_TEST_DIRNAME/../scripts/scale.py")
		run usr "$PY" "$script" "$SBOX" "$d" 200
		assert_status 0
		assert_contains "$output" "200 status lines"
	}
	each_user body
}
