#!/usr/bin/env python3
"""Writes a random-weight init net for a Caffe2 model-zoo predict net.

The zoo's init_net.pb files (the trained weights) are Git LFS objects that this tree does not
carry, and the predict nets do not say how many channels each Conv or FC writes (only the weights
do). So the init net made here gives every Conv and FC `--width` output channels (FC: the last one
`--classes`), which keeps every Sum / Add of two branches consistent (ResNet's shortcuts), and
derives every other parameter's shape from the shapes flowing through the net: Conv filters
[M, C / group, kh, kw], FC weights [M, K] (with axis_w: [1, ..., M, K]), SpatialBN's and the
broadcast Mul / Add's per-channel vectors [C]. Kernels, strides, pads, groups and the op sequence
are the zoo's own. The data blob is named and shaped by value_info.json, with the spatial size and
batch replaceable (--size, --batch).

Weights are GaussianFill with He's std sqrt(2 / fan_in), so activations keep their scale through
deep ReLU stacks; biases and shifts uniform in [-0.1, 0.1]; scales and variances in [0.5, 1.5];
the data uniform in [-1, 1]. `parity check --init` runs the init net once on production (each fill
gets a seed derived from the case's) and feeds the results to every engine.

    make_init_net.py PREDICT_NET.pbtxt VALUE_INFO.json -o INIT_NET.pbtxt [--width 16] [--size S]
"""
import argparse
import json
import math
import re
import sys

# ---- A small reader of protobuf text format: messages as {field: [values]}. ----

TOKEN = re.compile(r'\s*(?:(#[^\n]*)|("(?:[^"\\]|\\.)*")|([{}:])|([^\s{}:"]+))')


def tokenize(text):
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip():
                raise ValueError('cannot read text format at %r' % text[pos:pos + 20])
            return
        pos = m.end()
        if m.group(1):
            continue
        tok = m.group(2) or m.group(3) or m.group(4)
        if tok:
            yield tok


def parse_message(tokens, closing):
    msg = {}
    for tok in tokens:
        if tok == closing:
            return msg
        name = tok
        nxt = next(tokens)
        if nxt == ':':
            nxt = next(tokens)
        if nxt == '{':
            value = parse_message(tokens, '}')
        elif nxt.startswith('"'):
            value = bytes(nxt[1:-1], 'utf-8').decode('unicode_escape')
        else:
            value = nxt
        msg.setdefault(name, []).append(value)
    if closing is not None:
        raise ValueError('unterminated message')
    return msg


def read_net(path):
    with open(path) as f:
        return parse_message(tokenize(f.read()), None)


# ---- Shapes ----


def args_of(op):
    out = {}
    for arg in op.get('arg', []):
        name = arg['name'][0]
        if 'i' in arg:
            out[name] = int(arg['i'][0])
        elif 'f' in arg:
            out[name] = float(arg['f'][0])
        elif 's' in arg:
            out[name] = arg['s'][0]
        elif 'ints' in arg:
            out[name] = [int(v) for v in arg['ints']]
    return out


def pair(a, single, h, w, plural, default):
    if single in a:
        return a[single], a[single]
    if h in a or w in a:
        return a.get(h, default), a.get(w, default)
    if plural in a:
        return tuple(a[plural])
    return default, default


def pooled(n, c, hw, a, kernel):
    sh, sw = pair(a, 'stride', 'stride_h', 'stride_w', 'strides', 1)
    dh, dw = pair(a, 'dilation', 'dilation_h', 'dilation_w', 'dilations', 1)
    if 'pad' in a:
        pt = pl = pb = pr = a['pad']
    elif 'pads' in a:
        pt, pl, pb, pr = a['pads']
    else:
        pt, pl, pb, pr = (a.get(k, 0) for k in ('pad_t', 'pad_l', 'pad_b', 'pad_r'))
    kh, kw = kernel
    h = (hw[0] + pt + pb - (dh * (kh - 1) + 1)) // sh + 1
    w = (hw[1] + pl + pr - (dw * (kw - 1) + 1)) // sw + 1
    if h < 1 or w < 1:
        raise ValueError('the image is too small: a window of %dx%d over %s' % (kh, kw, hw))
    return [n, c, h, w]


class Builder:
    def __init__(self, width, classes):
        self.width = width
        self.classes = classes
        self.shapes = {}
        self.fills = []  # (blob, op type, args)

    def param(self, blob, dims, kind):
        if blob in self.shapes:
            if self.shapes[blob] != dims:
                raise ValueError('%s: needs %s, made %s' % (blob, dims, self.shapes[blob]))
            return
        self.shapes[blob] = dims
        if kind == 'weight':
            fan_in = 1
            for d in dims[1:]:
                fan_in *= d
            self.fills.append((blob, 'GaussianFill', {'shape': dims, 'std': math.sqrt(2.0 / fan_in)}))
        elif kind == 'shift':
            self.fills.append((blob, 'UniformFill', {'shape': dims, 'min': -0.1, 'max': 0.1}))
        else:  # 'scale': scales and variances
            self.fills.append((blob, 'UniformFill', {'shape': dims, 'min': 0.5, 'max': 1.5}))

    def run(self, net):
        ops = net.get('op', [])
        last_fc = max((i for i, op in enumerate(ops) if op['type'][0] == 'FC'), default=-1)
        for index, op in enumerate(ops):
            kind = op['type'][0]
            ins, outs = op.get('input', []), op.get('output', [])
            a = args_of(op)
            x = self.shapes.get(ins[0]) if ins else None
            if x is None:
                raise ValueError('op #%d (%s): input %s has no shape' % (index, kind, ins[0]))
            if kind == 'Conv':
                group = a.get('group', 1)
                kernel = pair(a, 'kernel', 'kernel_h', 'kernel_w', 'kernels', 0)
                m = self.width
                self.param(ins[1], [m, x[1] // group, kernel[0], kernel[1]], 'weight')
                if len(ins) > 2:
                    self.param(ins[2], [m], 'shift')
                self.shapes[outs[0]] = pooled(x[0], m, x[2:], a, kernel)
            elif kind == 'FC':
                axis, axis_w = a.get('axis', 1), a.get('axis_w', 1)
                k = 1
                for d in x[axis:]:
                    k *= d
                m = self.classes if index == last_fc else self.width
                self.param(ins[1], [1] * (axis_w - 1) + [m, k], 'weight')
                self.param(ins[2], [m], 'shift')
                self.shapes[outs[0]] = x[:axis] + [m]
            elif kind in ('MaxPool', 'AveragePool'):
                if a.get('global_pooling', 0):
                    self.shapes[outs[0]] = [x[0], x[1], 1, 1]
                else:
                    kernel = pair(a, 'kernel', 'kernel_h', 'kernel_w', 'kernels', 0)
                    self.shapes[outs[0]] = pooled(x[0], x[1], x[2:], a, kernel)
            elif kind == 'SpatialBN':
                self.param(ins[1], [x[1]], 'scale')
                self.param(ins[2], [x[1]], 'shift')
                self.param(ins[3], [x[1]], 'shift')
                self.param(ins[4], [x[1]], 'scale')
                self.shapes[outs[0]] = x
            elif kind in ('Mul', 'Add') and a.get('broadcast', 0):
                if a.get('axis', -1) != 1:
                    raise ValueError('op #%d (%s): only broadcast over axis 1' % (index, kind))
                self.param(ins[1], [x[1]], 'scale' if kind == 'Mul' else 'shift')
                self.shapes[outs[0]] = x
            elif kind == 'Concat':
                axis = a.get('axis', 1)
                parts = [self.shapes[b] for b in ins]
                y = list(parts[0])
                y[axis] = sum(p[axis] for p in parts)
                self.shapes[outs[0]] = y
            elif kind in ('Relu', 'LRN', 'Dropout', 'Softmax', 'Sum', 'Add', 'Mul'):
                self.shapes[outs[0]] = x
            else:
                raise ValueError('op #%d: no shape rule for %s' % (index, kind))


def fill_op(blob, kind, args):
    lines = ['op {', '  output: "%s"' % blob, '  type: "%s"' % kind]
    for name, value in args.items():
        if isinstance(value, list):
            body = ' '.join('ints: %d' % v for v in value)
        elif isinstance(value, float):
            body = 'f: %r' % value
        else:
            body = 'i: %d' % value
        lines.append('  arg { name: "%s" %s }' % (name, body))
    lines.append('}')
    return '\n'.join(lines)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('predict_net')
    p.add_argument('value_info')
    p.add_argument('-o', '--output', required=True)
    p.add_argument('--width', type=int, default=16, help='output channels of every Conv and FC')
    p.add_argument('--classes', type=int, default=10, help='output channels of the last FC')
    p.add_argument('--size', type=int, help="the image's height and width (default: value_info's)")
    p.add_argument('--batch', type=int, help='batch size (default: value_info\'s)')
    o = p.parse_args(argv)
    net = read_net(o.predict_net)
    with open(o.value_info) as f:
        info = json.load(f)
    (data, (_, dims)), = info.items()
    dims = list(dims)
    if o.batch:
        dims[0] = o.batch
    if o.size:
        dims[2] = dims[3] = o.size
    b = Builder(o.width, o.classes)
    b.shapes[data] = dims
    b.fills.append((data, 'UniformFill', {'shape': dims, 'min': -1.0, 'max': 1.0}))
    try:
        b.run(net)
    except ValueError as e:
        sys.stderr.write('make_init_net.py: %s: %s\n' % (o.predict_net, e))
        return 2
    name = net.get('name', ['net'])[0]
    text = ['name: "%s_random_init"' % name] + [fill_op(*f) for f in b.fills]
    with open(o.output, 'w') as f:
        f.write('\n'.join(text) + '\n')
    outputs = net.get('external_output', [])
    sys.stderr.write('%s: %d ops, %d parameters; %s\n' % (
        name, len(net.get('op', [])), len(b.fills) - 1,
        ', '.join('%s %s' % (y, b.shapes.get(y)) for y in outputs)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
