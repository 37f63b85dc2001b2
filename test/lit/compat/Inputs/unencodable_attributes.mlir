// dense_and_type_attributes.mlir: type attributes the format cannot hold,
// and dense elements it cannot give back as they were written.
func.func @tensor_type() {
  // expected-error @+1 {{BEF files cannot encode the 'type' attribute}}
  "my.op"() {type = tensor<1xf32>} : () -> ()
  tfrt.return
}

// -----

func.func @chain_type() {
  // expected-error @+1 {{BEF files cannot encode the 'type' attribute}}
  "my.op"() {type = !tfrt.chain} : () -> ()
  tfrt.return
}

// -----

func.func @index_type() {
  // expected-error @+1 {{BEF files cannot encode the 'type' attribute}}
  "my.op"() {type = index} : () -> ()
  tfrt.return
}

// -----

func.func @in_an_array() {
  // expected-error @+1 {{BEF files cannot encode the 'types' attribute}}
  "my.op"() {types = [i32, tensor<1xf32>]} : () -> ()
  tfrt.return
}

// -----

func.func @vector_elements() {
  // expected-error @+1 {{BEF files cannot encode the 'value' attribute}}
  "my.op"() {value = dense<1> : vector<2xi32>} : () -> ()
  tfrt.return
}

// -----

func.func @string_elements() {
  // expected-error @+1 {{BEF files cannot encode the 'value' attribute}}
  "my.op"() {value = dense<"x"> : tensor<1x!tfrt.string>} : () -> ()
  tfrt.return
}
