// scene tests live in examples until synth lands
