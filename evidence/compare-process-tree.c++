// Default-mode process dimension (SPEC A7): the shape of the process tree — who started whom,
// with which commands and exit states — independent of the order in which concurrent siblings
// were observed and of the numbers they were given. The canonical form is documented in
// evidence/compare.h.

#include <algorithm>
#include <map>

#include "evidence/canonical-json.h"
#include "evidence/compare-internal.h"
#include "evidence/sha256.h"

namespace rea::evidence::_ {
namespace {

struct Node {
  int64_t pid;
  std::optional<int64_t> parentPid;  // of the first sample: who started it
  size_t order;                      // first appearance among the samples
  std::optional<int64_t> firstAtMs;
  Json history = Json::array();  // states with their at_ms
  Json states = Json::array();   // the same states without at_ms
  std::vector<size_t> children;
  std::string historyKey;  // canonical JSON of `states`
  std::string subtreeHash;
};

Json leads(const Json& id, int64_t pid) {
  // Relational, so renumbering cannot change it: does this process lead its group/session?
  std::optional<int64_t> value = nonNegativeInteger(id);
  if (!value) return nullptr;
  return *value == pid;
}

std::vector<Node> collectNodes(const Json& capture) {
  std::vector<Node> nodes;
  std::map<int64_t, size_t> byPid;
  for (const Json& sample : arrayMember(capture, "process_samples")) {
    std::optional<int64_t> pid = nonNegativeInteger(member(sample, "pid"));
    if (!pid) continue;
    auto [it, inserted] = byPid.emplace(*pid, nodes.size());
    if (inserted) {
      Node node;
      node.pid = *pid;
      node.parentPid = nonNegativeInteger(member(sample, "parent_pid"));
      node.order = nodes.size();
      node.firstAtMs = elementTime(sample);
      nodes.push_back(std::move(node));
    }
    Node& node = nodes[it->second];
    Json state = Json::object();
    state["command"] = member(sample, "command");
    state["leads_group"] = leads(member(sample, "process_group_id"), *pid);
    state["leads_session"] = leads(member(sample, "session_id"), *pid);
    // A pid is sampled again when its ancestry changes too (reparenting); only changes of
    // state make history.
    if (!node.states.empty() && deepEqual(node.states.back(), state)) continue;
    Json entry = Json::object();
    const Json& atMs = member(sample, "at_ms");
    if (!atMs.is_null()) entry["at_ms"] = atMs;
    for (auto field = state.begin(); field != state.end(); ++field)
      entry[field.key()] = *field;
    node.history.push_back(std::move(entry));
    node.states.push_back(std::move(state));
  }

  for (Node& node : nodes)
    node.historyKey = canonicalJson(node.states);
  return nodes;
}

std::vector<size_t> linkTree(std::vector<Node>& nodes) {
  // Returns the roots. A node whose parent was never sampled is a root; so is one node of
  // each parent cycle (which only a corrupt capture can hold), the earliest-seen one.
  std::map<int64_t, size_t> byPid;
  for (const Node& node : nodes)
    byPid.emplace(node.pid, node.order);
  std::vector<std::optional<size_t>> parentOf(nodes.size());
  std::vector<size_t> roots;
  for (Node& node : nodes) {
    auto parent = node.parentPid ? byPid.find(*node.parentPid) : byPid.end();
    if (parent == byPid.end() || parent->second == node.order) {
      roots.push_back(node.order);
    } else {
      parentOf[node.order] = parent->second;
      nodes[parent->second].children.push_back(node.order);
    }
  }

  std::vector<bool> reached(nodes.size(), false);
  auto mark = [&](size_t root) {
    std::vector<size_t> stack{root};
    while (!stack.empty()) {
      size_t current = stack.back();
      stack.pop_back();
      if (reached[current]) continue;
      reached[current] = true;
      for (size_t child : nodes[current].children)
        stack.push_back(child);
    }
  };
  for (size_t root : roots)
    mark(root);
  for (size_t candidate = 0; candidate < nodes.size(); ++candidate) {
    if (reached[candidate]) continue;
    std::vector<size_t>& siblings = nodes[*parentOf[candidate]].children;
    siblings.erase(std::find(siblings.begin(), siblings.end(), candidate));
    roots.push_back(candidate);
    mark(candidate);
  }
  return roots;
}

void hashSubtrees(std::vector<Node>& nodes, const std::vector<size_t>& roots) {
  // Children before parents: reverse pre-order, iteratively (a chain can be 10,000 deep).
  std::vector<size_t> preorder;
  std::vector<size_t> stack;
  // Filled by insert, not copied: GCC 12 at -O2 misreads the inlined copy's free as a free of
  // a non-heap pointer (-Wfree-nonheap-object) in some unity batches.
  stack.insert(stack.end(), roots.begin(), roots.end());
  while (!stack.empty()) {
    size_t current = stack.back();
    stack.pop_back();
    preorder.push_back(current);
    for (size_t child : nodes[current].children)
      stack.push_back(child);
  }
  for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {
    Node& node = nodes[*it];
    std::vector<std::string> childHashes;
    for (size_t child : node.children)
      childHashes.push_back(nodes[child].subtreeHash);
    std::sort(childHashes.begin(), childHashes.end());
    Sha256 hash;
    hash.update(node.historyKey);
    for (const std::string& childHash : childHashes) {
      hash.update("\n");
      hash.update(childHash);
    }
    node.subtreeHash = hash.finishHex();
  }
}

void sortCanonically(std::vector<size_t>& siblings, const std::vector<Node>& nodes) {
  std::sort(siblings.begin(), siblings.end(), [&](size_t a, size_t b) {
    const Node& x = nodes[a];
    const Node& y = nodes[b];
    if (x.historyKey != y.historyKey) return x.historyKey < y.historyKey;
    if (x.subtreeHash != y.subtreeHash) return x.subtreeHash < y.subtreeHash;
    // Identical subtrees: pair them up by time of first observation (null last).
    if (x.firstAtMs != y.firstAtMs)
      return !y.firstAtMs || (x.firstAtMs && *x.firstAtMs < *y.firstAtMs);
    return x.order < y.order;
  });
}

}  // namespace

std::vector<Observation> processTreeObservations(const Json& capture) {
  std::vector<Node> nodes = collectNodes(capture);
  std::vector<size_t> roots = linkTree(nodes);
  hashSubtrees(nodes, roots);
  for (Node& node : nodes)
    sortCanonically(node.children, nodes);
  sortCanonically(roots, nodes);

  std::vector<Observation> list;
  std::vector<std::pair<size_t, uint64_t>> stack;  // node, depth
  for (auto it = roots.rbegin(); it != roots.rend(); ++it)
    stack.emplace_back(*it, 0);
  while (!stack.empty()) {
    auto [current, depth] = stack.back();
    stack.pop_back();
    const Node& node = nodes[current];
    Json element = Json::object();
    element["depth"] = depth;
    element["history"] = node.history;
    list.push_back(observe(element, node.firstAtMs));
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
      stack.emplace_back(*it, depth + 1);
    }
  }
  return list;
}

}  // namespace rea::evidence::_
