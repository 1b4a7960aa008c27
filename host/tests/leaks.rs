//! Programs that make their values point at themselves (a Python list appended to itself, a
//! function stored in the scope it closes over, a C++ lambda stored in a variable it
//! captures, a struct whose pointer points at it) leave nothing alive once their reading has
//! ended: the cycles are `Rc` cycles, which only the sweep at the end of a reading frees.
//! LeakSanitizer found them when fuzzing the readers (`host_python`, `host_c`).

use kerncast_host::{live_containers, read, HostReading, Options, Program, Toolchain};

/// Reads `text` as the only file of a program, named `name`; the reading and how many of the
/// containers it made were alive after it.
fn read_alone(name: &str, text: &str) -> (HostReading, usize) {
    let dir = std::env::temp_dir().join(format!(
        "kerncast-leaks-{}-{}",
        std::process::id(),
        name.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let tools = Toolchain::default();
    let program = Program::from_files(&[file], &[], &tools);
    let reading = read(&program, &Options::default()).unwrap();
    let left = live_containers();
    std::fs::remove_dir_all(&dir).unwrap();
    (reading, left)
}

fn assert_nothing_left(name: &str, text: &str) {
    let (reading, left) = read_alone(name, text);
    assert!(
        reading.diagnostics.is_empty(),
        "{name} does not read cleanly: {:?}",
        reading.diagnostics
    );
    assert_eq!(left, 0, "{name}: containers left alive after the reading");
}

#[test]
fn python_a_function_defined_in_its_module() {
    // the module's scope holds the function, which holds the module's scope
    assert_nothing_left("def.py", "def f(n):\n    return n + 1\n\nx = f(1)\n");
}

#[test]
fn python_a_list_appended_to_itself() {
    assert_nothing_left("list.py", "a = [1, 2]\na.append(a)\nb = {}\nb['b'] = b\n");
}

#[test]
fn python_an_attribute_pointing_at_its_object() {
    assert_nothing_left(
        "attr.py",
        "class Node:\n    def __init__(self):\n        self.me = self\n        self.n = 0\n\n\
         n = Node()\n",
    );
}

#[test]
fn python_a_closure_made_and_dropped_in_a_function() {
    // each call's scope holds `inner`, which holds that scope: a cycle per call, no longer
    // reachable once `outer` returns
    assert_nothing_left(
        "closure.py",
        "def outer(k):\n    def inner():\n        return k\n    return inner()\n\n\
         total = 0\nfor i in range(5):\n    total += outer(i)\n",
    );
}

#[test]
fn cpp_a_lambda_stored_in_a_variable_it_captures() {
    // `[&]` closes over main's frame, whose variable `f` then holds it; `[=]` over a frame of
    // its own whose parent is main's
    assert_nothing_left(
        "lambda.cpp",
        "int main() {\n  int n = 3;\n  auto f = [&]() { return n; };\n  auto g = [=]() { return n + 1; };\n  \
         return f() + g();\n}\n",
    );
}

#[test]
fn cpp_a_struct_whose_pointer_points_at_it() {
    assert_nothing_left(
        "self.cpp",
        "struct node { node *next; int v; };\n\
         int main() {\n  node n;\n  n.next = &n;\n  n.v = 1;\n  node a, b;\n  a.next = &b;\n  b.next = &a;\n  \
         return n.next->v;\n}\n",
    );
}

#[test]
fn cpp_a_circular_linked_list() {
    assert_nothing_left(
        "list.cpp",
        "struct node { node *next; int v; };\n\
         int make(int k) {\n  node *head = nullptr;\n  node *last = nullptr;\n  \
         for (int i = 0; i < k; i++) {\n    node *x = new node;\n    x->v = i;\n    x->next = head;\n    \
         if (!last) last = x;\n    head = x;\n  }\n  last->next = head;\n  return head->v;\n}\n\
         int main() {\n  int s = 0;\n  for (int j = 0; j < 4; j++) s += make(8);\n  return s;\n}\n",
    );
}
