// RUN: soac-opt %s -p 'soac-flatten{mode=full}' | filecheck %s --check-prefix=FULL
// RUN: soac-opt %s -p 'soac-flatten{mode=moderate}' | filecheck %s --check-prefix=MODERATE
// RUN: soac-opt %s -p 'soac-flatten{mode=incremental}' | filecheck %s --check-prefix=INCR

// map (hist ...): a histogram per row becomes a segmented histogram over (rows, row length) whose destinations
// hold a row of bins per segment. The destinations the rows start from (here replicates of the neutral element)
// become arrays over the nest, made by the flattener, which the seghist consumes.

// FULL-LABEL: func.func @counts_per_row
// FULL:         %empty = soac.segmap thread (%n, %bins) -> tensor<?x?xi32> lambda(%i: index, %j: index) {
// FULL-NEXT:      soac.yield %z : i32
// FULL-NEXT:    }
// FULL-NEXT:    %r = soac.seghist thread (%n, %m) into(%empty : tensor<?x?xi32>) neutral(%z : i32) -> tensor<?x?xi32> combine(%a: i32, %b: i32) {
// FULL-NEXT:      %s = arith.addi %a, %b : i32
// FULL-NEXT:      soac.yield %s : i32
// FULL-NEXT:    } lambda(%i_1: index, %j_1: index) {
// FULL-NEXT:      %i_2 = soac.index %iss[%i_1, %j_1] : tensor<?x?xi32> -> i32
// FULL-NEXT:      %k = arith.index_cast %i_2 : i32 to index
// FULL-NEXT:      %one = arith.constant 1 : i32
// FULL-NEXT:      soac.yield %k, %one : index, i32
// FULL-NEXT:    }
// FULL-NEXT:    func.return %r : tensor<?x?xi32>

// Moderate flattening keeps only the outer parallelism: each thread runs its row's histogram sequentially.
// (The starting bins are still made by a segmap over the nest, whose rows the threads read.)
// MODERATE-LABEL: func.func @counts_per_row
// MODERATE:         %empty = soac.segmap thread (%n, %bins)
// MODERATE:         %r = soac.segmap thread (%n) -> tensor<?x?xi32> lambda(%i_1: index) {
// MODERATE-NEXT:      %is = soac.index %iss[%i_1] : tensor<?x?xi32> -> tensor<?xi32>
// MODERATE-NEXT:      %empty_1 = soac.index %empty[%i_1] : tensor<?x?xi32> -> tensor<?xi32>
// MODERATE-NEXT:      %c = soac.hist %m (%is : tensor<?xi32>) into(%empty_1 : tensor<?xi32>)
// MODERATE-NOT:     soac.seghist

// Incremental flattening: a histogram makes no version worth it (Futhark's worthSequentialising and
// worthIntrablock count it 0), so the map of histograms is the seghist alone.
// INCR-LABEL: func.func @counts_per_row
// INCR-NOT:       soac.threshold
// INCR:           soac.seghist thread (%n, %m) into(%empty{{.*}} : tensor<?x?xi32>)
// INCR-NOT:       soac.threshold
// INCR:         func.return %r
func.func @counts_per_row(%iss: tensor<?x?xi32>, %bins: index) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %iss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %r = soac.map %n (%iss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%is: tensor<?xi32>) {
    %empty = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %c = soac.hist %m (%is : tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %k = arith.index_cast %i : i32 to index
      %one = arith.constant 1 : i32
      soac.yield %k, %one : index, i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}

// The rows start from rows of an argument, which the function also returns: the flat version copies them (a
// segmap) and the seghist consumes the copy.
// FULL-LABEL: func.func @into_argument_rows
// FULL:         %init = soac.segmap thread (%n) -> tensor<?x?xi32> lambda(%i: index) {
// FULL-NEXT:      %init_1 = soac.index %inits[%i] : tensor<?x?xi32> -> tensor<?xi32>
// FULL-NEXT:      soac.yield %init_1 : tensor<?xi32>
// FULL-NEXT:    }
// FULL-NEXT:    %r = soac.seghist thread (%n, %m) into(%init : tensor<?x?xi32>)
// FULL:         func.return %r, %inits
// MODERATE-LABEL: func.func @into_argument_rows
// MODERATE-NOT:   soac.seghist
// MODERATE:       func.return
// INCR-LABEL: func.func @into_argument_rows
// INCR:           soac.seghist thread (%n, %m) into(%init : tensor<?x?xi32>)
func.func @into_argument_rows(%iss: tensor<?x?xi32>, %inits: tensor<?x?xi32>) -> (tensor<?x?xi32>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %m = tensor.dim %iss, %c1 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %r = soac.map %n (%iss, %inits : tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%is: tensor<?xi32>, %init: tensor<?xi32>) {
    %c = soac.hist %m (%is : tensor<?xi32>) into(%init : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %k = arith.index_cast %i : i32 to index
      soac.yield %k, %i : index, i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %r, %inits : tensor<?x?xi32>, tensor<?x?xi32>
}

// A histogram whose width varies from row to row (a slice of each row up to its first element) is irregular:
// it stays sequential in every mode.
// FULL-LABEL: func.func @irregular
// FULL-NOT:     soac.seghist
// FULL:         soac.hist
// FULL:         func.return
func.func @irregular(%iss: tensor<?x?xi32>, %bins: index) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %iss, %c0 : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %r = soac.map %n (%iss : tensor<?x?xi32>) -> tensor<?x?xi32> lambda(%is: tensor<?xi32>) {
    %first = soac.index %is[%c0] : tensor<?xi32> -> i32
    %w = arith.index_cast %first : i32 to index
    %part = soac.slice %is[%c0 : %w] : tensor<?xi32> -> tensor<?xi32>
    %empty = soac.replicate %bins, %z : i32 -> tensor<?xi32>
    %c = soac.hist %w (%part : tensor<?xi32>) into(%empty : tensor<?xi32>) neutral(%z : i32) -> tensor<?xi32> combine(%a: i32, %b: i32) {
      %s = arith.addi %a, %b : i32
      soac.yield %s : i32
    } lambda(%i: i32) {
      %k = arith.index_cast %i : i32 to index
      soac.yield %k, %i : index, i32
    }
    soac.yield %c : tensor<?xi32>
  }
  func.return %r : tensor<?x?xi32>
}
