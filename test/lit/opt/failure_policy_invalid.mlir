// Verifier and parser errors of on_failure, the failure policy of
// tfrt_dist.call (#tfrt_dist.retry, #tfrt_dist.fallback).
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @max_zero(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure max must be from 1 to 100 attempts, got 0}}
  %r = tfrt_dist.call %f(%x, %x) {on_failure = #tfrt_dist.retry<max = 0>} : (i32, i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @max_too_large(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure max must be from 1 to 100 attempts, got 101}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<max = 101>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @backoff_negative(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure backoff_ms must be from 0 to 60000, got -1}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<max = 2, backoff_ms = -1>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @backoff_too_long(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure backoff_ms must be from 0 to 60000, got 60001}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<max = 2, backoff_ms = 60001>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @unknown_class(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure names unknown failure class 'transient'; the classes are retryable, fatal and stale}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<max = 2, classes = [retryable, transient]>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @retry_cancelled(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure must not retry failures of class cancelled: a cancelled request wants no more attempts}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<max = 2, classes = [cancelled]>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @fall_back_on_cancelled(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure must not fall back on failures of class cancelled: a cancelled request wants no results}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.fallback<@id, classes = [fatal, cancelled]>} : (i32) -> i32
  tfrt.return %r : i32
}

func.func @id(%x: i32) -> i32 {
  tfrt.return %x : i32
}

// -----

func.func @fallback_missing(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure falls back on 'nowhere', which is not a function of this module}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<max = 2, fallback = @nowhere>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @fallback_wrong_type(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure falls back on 'widen' of type (i32) -> (i64), but the op needs (i32) -> (i32)}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.fallback<@widen>} : (i32) -> i32
  tfrt.return %r : i32
}

func.func @widen(%x: i32) -> i64 {
  %y = "tfrt.sext.i32.i64"(%x) : (i32) -> i64
  tfrt.return %y : i64
}

// -----

func.func @fallback_wrong_arity(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op on_failure falls back on 'add' of type (i32, i32) -> (i32), but the op needs (i32) -> (i32)}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.fallback<@add>} : (i32) -> i32
  tfrt.return %r : i32
}

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

// -----

func.func @unknown_key(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{#tfrt_dist.retry has unknown key 'attempts'; it takes max, classes, backoff_ms and fallback}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<attempts = 2>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @fallback_unknown_key(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{#tfrt_dist.fallback has unknown key 'max'; it takes classes}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.fallback<@f, max = 2>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @key_twice(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{#tfrt_dist.retry gives 'max' more than once}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<max = 2, max = 3>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @max_missing(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{#tfrt_dist.retry needs 'max', the number of attempts in all}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.retry<backoff_ms = 5>} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @fallback_not_a_function(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{#tfrt_dist.fallback falls back on a local function (@name), got "id"}}
  %r = tfrt_dist.call %f(%x) {on_failure = #tfrt_dist.fallback<"id">} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @not_a_policy(%f: !tfrt_dist.remote_function, %x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.call' op attribute 'on_failure' failed to satisfy constraint}}
  %r = tfrt_dist.call %f(%x) {on_failure = 3 : i64} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @schedule_fallback_wrong_type(%x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.schedule' op on_failure falls back on 'widen_again' of type (i32) -> (i64), but the op needs (i32) -> (i32)}}
  %r = tfrt_dist.schedule @same(%x) {on_failure = #tfrt_dist.fallback<@widen_again>} : (i32) -> i32
  tfrt.return %r : i32
}

func.func @same(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @widen_again(%x: i32) -> i64 {
  %y = "tfrt.sext.i32.i64"(%x) : (i32) -> i64
  tfrt.return %y : i64
}

// -----

func.func @schedule_bad_policy(%x: i32) -> i32 {
  // expected-error @+1 {{'tfrt_dist.schedule' op on_failure max must be from 1 to 100 attempts, got 0}}
  %r = tfrt_dist.schedule @same_again(%x) {on_failure = #tfrt_dist.retry<max = 0>} : (i32) -> i32
  tfrt.return %r : i32
}

func.func @same_again(%x: i32) -> i32 {
  tfrt.return %x : i32
}
