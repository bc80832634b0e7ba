// Forbids module-level mutable state: a module variable that a call can change is memory shared by every caller of
// the process (and, under a test runner that loads a module twice, not even shared consistently). What the verbs
// remember between calls belongs to an object the composition root builds and passes on.
//
// Reported at the top level of a module (and in static class fields):
// - `let` and `var` declarations;
// - a `const` holding a mutable container (Map, Set, WeakMap, WeakSet, Array, a typed array, or a class named in
//   the `stateClasses` option), unless its declared type is read-only (`ReadonlyMap`, `readonly T[]`, `Readonly<…>`)
//   or it is frozen;
// - a `const` holding an object, array or instance that the module itself writes to (assigns or deletes a property,
//   calls a mutating method such as `push`, `set`, `add`, `clear`, passes it as `Object.assign`'s target).

const CONTAINERS = new Set([
  'Map', 'Set', 'WeakMap', 'WeakSet', 'Array',
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
]);

const TYPED_ARRAYS = new Set([...CONTAINERS].filter((name) => name.endsWith('Array') && name !== 'Array'));

const MUTATING_METHODS = new Set([
  'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin',
  'set', 'add', 'delete', 'clear',
]);

const READONLY_TYPES = new Set(['ReadonlyMap', 'ReadonlySet', 'ReadonlyArray', 'Readonly']);

/** Expressions that change a value's type, not the value. */
const TS_WRAPPERS = new Set(['TSAsExpression', 'TSSatisfiesExpression', 'TSNonNullExpression', 'TSTypeAssertion']);

/** Strips what does not change the value: `x as T`, `x satisfies T`, `x!`. */
function unwrap(node) {
  let current = node;
  while (TS_WRAPPERS.has(current.type)) current = current.expression;
  return current;
}

function isAsConst(node) {
  return (
    node.type === 'TSAsExpression' &&
    node.typeAnnotation.type === 'TSTypeReference' &&
    node.typeAnnotation.typeName.type === 'Identifier' &&
    node.typeAnnotation.typeName.name === 'const'
  );
}

function isFrozen(node) {
  const callee = node.type === 'CallExpression' ? node.callee : undefined;
  return (
    callee?.type === 'MemberExpression' &&
    callee.object.type === 'Identifier' &&
    callee.object.name === 'Object' &&
    callee.property.type === 'Identifier' &&
    callee.property.name === 'freeze'
  );
}

function isReadonlyType(typeNode) {
  if (!typeNode) return false;
  if (typeNode.type === 'TSTypeOperator') return typeNode.operator === 'readonly';
  return (
    typeNode.type === 'TSTypeReference' &&
    typeNode.typeName.type === 'Identifier' &&
    READONLY_TYPES.has(typeNode.typeName.name)
  );
}

function constructorName(newExpression) {
  const callee = newExpression.callee;
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier') return callee.property.name;
  return undefined;
}

/** `new Float64Array(0)` holds nothing a caller could change. */
function isEmptyTypedArray(newExpression, name) {
  const [length] = newExpression.arguments;
  return TYPED_ARRAYS.has(name) && newExpression.arguments.length === 1 && length.type === 'Literal' && length.value === 0;
}

function propertyName(member) {
  if (!member.computed && member.property.type === 'Identifier') return member.property.name;
  return undefined;
}

/** The outermost expression that is still the same value as `node` (`(x as T)`, `x!`). */
function sameValueAround(node) {
  let current = node;
  while (TS_WRAPPERS.has(current.parent.type) && current.parent.expression === current) current = current.parent;
  return current;
}

function isObjectAssignTarget(value) {
  const call = value.parent;
  return (
    call.type === 'CallExpression' &&
    call.arguments[0] === value &&
    call.callee.type === 'MemberExpression' &&
    call.callee.object.type === 'Identifier' &&
    call.callee.object.name === 'Object' &&
    propertyName(call.callee) === 'assign'
  );
}

/** Whether this reference to a module variable writes into the value it holds. */
function isMutation(identifier) {
  const value = sameValueAround(identifier);
  if (isObjectAssignTarget(value)) return true;
  let member = value;
  while (member.parent.type === 'MemberExpression' && member.parent.object === member) member = member.parent;
  if (member === value) return false;
  const holder = member.parent;
  if (holder.type === 'AssignmentExpression') return holder.left === member;
  if (holder.type === 'UpdateExpression') return true;
  if (holder.type === 'UnaryExpression') return holder.operator === 'delete';
  return holder.type === 'CallExpression' && holder.callee === member && MUTATING_METHODS.has(propertyName(member));
}

/** The mutable container an initializer builds, if any: its constructor's name. */
function containerOf(init, stateClasses) {
  const value = unwrap(init);
  if (value.type !== 'NewExpression') return undefined;
  const name = constructorName(value);
  if (name === undefined || isEmptyTypedArray(value, name)) return undefined;
  return CONTAINERS.has(name) || stateClasses.has(name) ? name : undefined;
}

function checkConst(context, stateClasses, declarator) {
  const init = declarator.init;
  if (!init || isAsConst(init) || isFrozen(unwrap(init)) || declarator.id.type !== 'Identifier') return;
  const name = declarator.id.name;
  const container = containerOf(init, stateClasses);
  if (container !== undefined && !isReadonlyType(declarator.id.typeAnnotation?.typeAnnotation)) {
    context.report({ node: declarator, messageId: 'container', data: { name, type: container } });
    return;
  }
  const [variable] = context.sourceCode.getDeclaredVariables(declarator);
  const written = variable?.references.find((reference) => isMutation(reference.identifier));
  if (written) context.report({ node: written.identifier, messageId: 'mutated', data: { name } });
}

function checkDeclaration(context, stateClasses, declaration) {
  for (const declarator of declaration.declarations) {
    if (declaration.kind === 'const') {
      checkConst(context, stateClasses, declarator);
      continue;
    }
    const name = declarator.id.type === 'Identifier' ? declarator.id.name : context.sourceCode.getText(declarator.id);
    context.report({ node: declarator, messageId: 'variable', data: { kind: declaration.kind, name } });
  }
}

function checkStaticField(context, stateClasses, field) {
  const holdsContainer =
    field.value !== null &&
    containerOf(field.value, stateClasses) !== undefined &&
    !isReadonlyType(field.typeAnnotation?.typeAnnotation);
  if (field.readonly && !holdsContainer) return;
  const name = field.key.type === 'Identifier' ? field.key.name : context.sourceCode.getText(field.key);
  context.report({ node: field, messageId: 'staticField', data: { name } });
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid module-level mutable state (top-level let/var, mutable containers, mutated objects)' },
    schema: [
      {
        type: 'object',
        properties: { stateClasses: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
        additionalProperties: false,
      },
    ],
    messages: {
      variable:
        "Module-level '{{kind}} {{name}}' is state shared by every caller; keep it in an object the caller owns.",
      container:
        "Module-level '{{name}}' holds a mutable {{type}}; keep it in an object the caller owns, or declare it read-only.",
      mutated:
        "Module-level '{{name}}' is written to in this module; keep that state in an object the caller owns.",
      staticField:
        "Static field '{{name}}' is module-level state; make it readonly and immutable, or move it to an instance.",
    },
  },

  create(context) {
    const stateClasses = new Set(context.options[0]?.stateClasses ?? []);
    const declaration = (node) => checkDeclaration(context, stateClasses, node);
    return {
      'Program > VariableDeclaration': declaration,
      'Program > ExportNamedDeclaration > VariableDeclaration': declaration,
      'PropertyDefinition[static=true]': (node) => checkStaticField(context, stateClasses, node),
    };
  },
};
