import json, sys, copy, re, urllib.parse
METHODS = ("get","post","put","patch","delete")

def walk_refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str): out.add(r)
        for k, v in node.items(): walk_refs(v, out)
    elif isinstance(node, list):
        for v in node: walk_refs(v, out)

def resolve(doc, ref):
    parts = ref[2:].split("/")
    n = doc
    for p in parts:
        p = urllib.parse.unquote(p.replace("~1","/").replace("~0","~"))
        n = n[int(p)] if isinstance(n, list) else n[p]
    return n

def strip(node, in_props=False):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if not in_props and (k in ("example", "examples") or k.startswith("x-")): continue
            out[k] = strip(v, (not in_props) and k in ("properties", "patternProperties"))
        return out
    if isinstance(node, list): return [strip(v) for v in node]
    return node

def deref(doc, n):
    seen=0
    while isinstance(n, dict) and "$ref" in n and seen<10:
        n = resolve(doc, n["$ref"]); seen+=1
    return n

def features(doc, path, method, op, pitem):
    f = set()
    params = list(pitem.get("parameters", [])) + list(op.get("parameters", []))
    for p in params:
        p = deref(doc, p)
        s = deref(doc, p.get("schema", {})) or {}
        loc = p.get("in")
        t = s.get("type")
        style = p.get("style", "form" if loc in ("query","cookie") else "simple")
        f.add(f"{loc}")
        if loc == "query":
            f.add(f"q-{t}-{style}-{p.get('explode', style=='form')}")
            if not p.get("required"): f.add("q-optional")
        if loc == "header": f.add("header-" + ("req" if p.get("required") else "opt"))
        if loc == "path" and t in ("integer","number"): f.add("path-number")
    rb = deref(doc, op.get("requestBody", {}))
    for ct, media in (rb.get("content") or {}).items():
        s = deref(doc, media.get("schema", {})) or {}
        f.add("body-" + ct.split(";")[0])
        f.add("body-type-" + str(s.get("type")))
        for k in ("oneOf","anyOf","allOf"):
            if k in s: f.add("body-" + k)
        if isinstance(s.get("additionalProperties"), dict): f.add("body-map")
        for pn, ps in (s.get("properties") or {}).items():
            ps = deref(doc, ps)
            if isinstance(ps, dict):
                if ps.get("type") == "array": f.add("body-prop-array")
                if ps.get("type") == "object" or "properties" in ps: f.add("body-prop-object")
                if "oneOf" in ps or "anyOf" in ps: f.add("body-prop-oneOf")
                if ps.get("nullable"): f.add("body-nullable")
    for code, r in (op.get("responses") or {}).items():
        if not str(code).startswith("2"): continue
        r = deref(doc, r)
        for ct, media in (r.get("content") or {}).items():
            s = deref(doc, media.get("schema", {})) or {}
            f.add("resp-" + str(s.get("type")))
            if isinstance(s.get("additionalProperties"), dict): f.add("resp-map")
            for k in ("oneOf","anyOf","allOf"):
                if k in s: f.add("resp-" + k)
            for pn, ps in (s.get("properties") or {}).items():
                ps = deref(doc, ps)
                if isinstance(ps, dict) and ps.get("type") == "array": f.add("resp-list")
                if isinstance(ps, dict) and isinstance(ps.get("additionalProperties"), dict): f.add("resp-nested-map")
        break
    f.add("method-" + method)
    return f

def cut(src, selected, pick_auto, name_hint, max_kb, exclude=(), drop_errors=False):
    doc = json.load(open(src))
    global INLINED
    INLINED = False
    def inline(node):
        global INLINED
        if isinstance(node, dict):
            r = node.get("$ref")
            if isinstance(r, str) and r.startswith("#/paths/"):
                INLINED = True
                return inline(copy.deepcopy(resolve(doc, r)))
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list): return [inline(v) for v in node]
        return node
    doc["paths"] = inline(doc["paths"])
    if drop_errors:
        for pitem in doc["paths"].values():
            for m in METHODS:
                if m in pitem:
                    pitem[m]["responses"] = {k: v for k, v in pitem[m]["responses"].items() if str(k).startswith("2")}
    ops = []
    for path, pitem in doc["paths"].items():
        for m in METHODS:
            if m in pitem and isinstance(pitem[m], dict):
                ops.append((path, m, pitem[m], pitem))
    chosen = []
    for sel in selected:
        for o in ops:
            if o[2].get("operationId") == sel or f"{o[1].upper()} {o[0]}" == sel:
                chosen.append(o)
    pool = [o for o in ops if o not in chosen and o[2].get("operationId") not in exclude and not o[2].get("deprecated")]
    have = set()
    for o in chosen: have |= features(doc, o[0], o[1], o[2], o[3])
    while len(chosen) < pick_auto and pool:
        best = max(pool, key=lambda o: (len(features(doc, o[0], o[1], o[2], o[3]) - have), -pool.index(o)))
        pool.remove(best)
        if len(json.dumps(build(doc, chosen + [best]), indent=1)) > max_kb * 1024: continue
        chosen.append(best)
        have |= features(doc, best[0], best[1], best[2], best[3])
    out = build(doc, chosen)
    return out, [f"{m.upper()} {p}" + (f" ({op.get('operationId')})" if op.get("operationId") else "") for p, m, op, _ in chosen]

def build(doc, chosen):
    out = {k: v for k, v in doc.items() if k not in ("paths","components","tags","x-tagGroups")}
    paths = {}
    for path, m, op, pitem in chosen:
        p = paths.setdefault(path, {k: v for k, v in pitem.items() if k not in METHODS and k not in ("head","options","trace")})
        p[m] = op
    # order paths as in source
    out["paths"] = {k: paths[k] for k in doc["paths"] if k in paths}
    for k in out["paths"]:
        out["paths"][k] = {kk: out["paths"][k][kk] for kk in doc["paths"][k] if kk in out["paths"][k]}
    refs = set(); walk_refs(out["paths"], refs); walk_refs(out.get("security"), refs)
    comps = doc.get("components", {})
    keep = {}
    todo = list(refs)
    while todo:
        r = todo.pop()
        if not r.startswith("#/components/"): continue
        _, _, sect, name = r.split("/", 3)
        name = name.split("/")[0]
        if (sect, name) in keep: continue
        node = comps[sect][name.replace("~1","/").replace("~0","~")]
        keep[(sect, name)] = node
        more = set(); walk_refs(node, more); todo.extend(more)
    newc = {}
    for sect, names in comps.items():
        for nm, node in names.items():
            if (sect, nm) in keep or sect == "securitySchemes":
                newc.setdefault(sect, {})[nm] = node
    out["components"] = newc
    tags = {t for (_, _, op, _) in chosen for t in op.get("tags", [])}
    if "tags" in doc: out["tags"] = [t for t in doc["tags"] if t["name"] in tags]
    return strip(out)

if __name__ == "__main__":
    cfg = json.load(open(sys.argv[1]))
    for c in cfg:
        out, chosen = cut(c["src"], c.get("select", []), c.get("n", 14), c["name"], c.get("kb", 250), c.get("exclude", []), c.get("dropErrors", False))
        fixture = {"source": c["source"], "license": c["license"],
                   "cut": "only the operations listed in `operations` and the path items and components they reference (transitively) are kept, with every security scheme; example and examples keywords and x- extensions removed; nothing else is changed. Operations chosen to cover parameter styles, headers, bodies, lists, maps and combinators.",
                   "operations": chosen}
        if INLINED: fixture["cut"] += " References into other path items are inlined."
        if c.get("dropErrors"): fixture["cut"] += " Error responses (non-2xx, default) removed: the error schema references most of the document."
        out = {"x-fixture": fixture, **out}
        s = json.dumps(out, indent=1, ensure_ascii=False)
        open(f"/work/wt-diff/fixtures/openapi/real/{c['name']}.json", "w").write(s + "\n")
        print(c["name"], len(chosen), f"{len(s)//1024}K")
