// The `tfrt_data` dialect: input pipelines. A dataset describes a sequence
// of elements (each a list of !t.tensor); an iterator walks one, and
// iterator_get_next takes its next element. Op names and operand syntax
// follow TFRT's tfrt_data where TFRT has the op. See docs/datasets.md.

#ifndef SLUICE_DIALECTS_TFRT_DATA_TFRT_DATA_OPS_TD_
#define SLUICE_DIALECTS_TFRT_DATA_TFRT_DATA_OPS_TD_

include "dialects/t/t_base.td"
include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def TfrtData_Dialect : Dialect {
  let name = "tfrt_data";
  let summary = "datasets and iterators";
  let cppNamespace = "::sluice::tfrt_data";
  // Same reason as for `tfrt`: the emitter walks one attribute dictionary
  // per op.
  let usePropertiesForAttributes = 0;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::sluice::tfrt::TfrtDialect",
                           "::sluice::t::TDialect"];
}

class TfrtData_Type<string name, string type_mnemonic>
    : TypeDef<TfrtData_Dialect, name> {
  let mnemonic = type_mnemonic;
}

def TfrtData_DatasetType : TfrtData_Type<"Dataset", "dataset"> {
  let summary = "an immutable description of a sequence of elements";
}

def TfrtData_IteratorType : TfrtData_Type<"Iterator", "iterator"> {
  let summary = "a position in a dataset, shared by the calls that read it";
}

class TfrtData_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtData_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Datasets
//===----------------------------------------------------------------------===//

def TfrtData_RangeDatasetOp : TfrtData_Op<"range_dataset"> {
  let summary = "start, start + step, ... up to stop (exclusive)";
  let description = [{
    Each element is one rank-0 i64 tensor. `element_type` is TFRT's
    attribute; kernels cannot read a type attribute, so i64 is the only one
    the verifier accepts.
    `%ds = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}`
  }];
  let arguments = (ins I64:$start, I64:$stop, I64:$step,
                   TypeAttr:$element_type);
  let results = (outs TfrtData_DatasetType:$output_dataset);
  let assemblyFormat = "$start `,` $stop `,` $step attr-dict";
  let hasVerifier = 1;
}

def TfrtData_GaussianClustersDatasetOp
    : TfrtData_Op<"gaussian_clusters_dataset"> {
  let summary = "synthetic classification data: Gaussian clusters";
  let description = [{
    Element i is example first_example + i: (features f32 [num_features],
    label i32 []), a pure function of the seed and the example's index.
  }];
  let arguments = (ins I64Attr:$num_examples,
                   DefaultValuedOptionalAttr<I64Attr, "0">:$first_example,
                   I64Attr:$num_features, I64Attr:$num_classes,
                   I64Attr:$seed, F64Attr:$stddev);
  let results = (outs TfrtData_DatasetType:$output_dataset);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TfrtData_ShardDatasetOp : TfrtData_Op<"shard_dataset"> {
  let summary = "every num_shards-th element, from element index on";
  let arguments = (ins TfrtData_DatasetType:$input_dataset, I64:$num_shards,
                   I64:$index);
  let results = (outs TfrtData_DatasetType:$output_dataset);
  let assemblyFormat = "$input_dataset `,` $num_shards `,` $index attr-dict";
}

def TfrtData_BatchDatasetOp : TfrtData_Op<"batch_dataset"> {
  let summary = "consecutive elements stacked into batches";
  let description = [{
    Each component of batch_size consecutive elements is stacked into one
    [batch_size, ...] tensor; the last batch may be smaller, unless
    `drop_remainder` is set.
  }];
  let arguments = (ins TfrtData_DatasetType:$input_dataset, I64:$batch_size,
                   DefaultValuedOptionalAttr<BoolAttr, "false">:$drop_remainder);
  let results = (outs TfrtData_DatasetType:$output_dataset);
  let assemblyFormat = "$input_dataset `,` $batch_size attr-dict";
}

def TfrtData_RepeatDatasetOp : TfrtData_Op<"repeat_dataset"> {
  let summary = "the input read `count` times over, or forever for -1";
  let arguments = (ins TfrtData_DatasetType:$input_dataset, I64:$count);
  let results = (outs TfrtData_DatasetType:$output_dataset);
  let assemblyFormat = "$input_dataset `,` $count attr-dict";
}

//===----------------------------------------------------------------------===//
// Iterators
//===----------------------------------------------------------------------===//

def TfrtData_MakeIteratorOp : TfrtData_Op<"make_iterator"> {
  let summary = "an iterator at the first element of a dataset";
  let arguments = (ins TfrtData_DatasetType:$dataset);
  let results = (outs TfrtData_IteratorType:$iterator);
  let assemblyFormat = "$dataset attr-dict";
}

def TfrtData_IteratorGetNextOp : TfrtData_Op<"iterator_get_next"> {
  let summary = "the iterator's next element, and a chain";
  let description = [{
    `%ch1, %x, %y = tfrt_data.iterator_get_next %it, %ch0 : !t.tensor, !t.tensor`
    takes the next element once `%ch0` is ready; the types after the colon
    are its components'. Once the data has ended every result is an
    OUT_OF_RANGE error: "iterator_get_next: the iterator is exhausted after
    N elements".
  }];
  let arguments = (ins TfrtData_IteratorType:$iterator,
                   Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain,
                 Variadic<T_TensorType>:$components);
  let assemblyFormat =
      "$iterator `,` $in_chain attr-dict `:` type($components)";
  let hasVerifier = 1;
}

#endif  // SLUICE_DIALECTS_TFRT_DATA_TFRT_DATA_OPS_TD_
