
relu
xyr"Relu:xBy