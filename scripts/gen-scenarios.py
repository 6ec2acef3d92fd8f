"""Writes testdata/scenarios/*.json (format: testdata/scenarios/README.md).
The files are the suite every language runs; this script is where they are
written from: edit here, run `python3 scripts/gen-scenarios.py`, commit both."""
import json, os
OUT=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'testdata', 'scenarios')
S=[]
def sc(name, covers, about, steps, nodes=3, config=None, host=None):
    d={"name":name,"covers":covers,"about":about,"nodes":nodes}
    if config: d["config"]=config
    if host: d["host"]=host
    d["steps"]=steps
    S.append(d)
A="actor"; P="spot"
def act(n,i,k=A): return {"do":"activate","node":n,"kind":k,"id":i}
def res(n,i,exp,k=A): return {"do":"resolve","node":n,"kind":k,"id":i,"expect":exp}
def send(n,i,name=None,exp=None,k=A,payload="m",**kw):
    d={"do":"send","node":n,"kind":k,"id":i,"payload":payload}
    if name: d["as"]=name
    if exp: d["expect"]=exp
    d.update(kw); return d
def req(n,i,name=None,exp=None,k=A,payload="q",**kw):
    d={"do":"request","node":n,"kind":k,"id":i,"payload":payload}
    if name: d["as"]=name
    if exp: d["expect"]=exp
    d.update(kw); return d
CARRY={"do":"carry"}
def exp(**kw): d={"do":"expect"}; d.update(kw); return d
def adv(ms): return {"do":"advance","ms":ms}
def move(src,dst,i,k=A,**kw):
    d={"do":"begin_relocation","node":src,"kind":k,"id":i,"target":dst}; d.update(kw); return d
def rule(**kw): d={"do":"rule"}; d.update(kw); return d
FOLLOW_OFF={"message_follow_duration_ms":0}

# ---- §5 Global ID Lookup
sc("direct_call_takes_only_a_global_id", ["§5 Global ID Lookup 1"],
   "A direct send names only the global ID; the runtime finds the owner and the owner delivers.",
   [act(1,"a"), send(2,"a","m1",{"tag":"Submitted","to":1}), CARRY,
    exp(delivered=[{"op":"m1","node":1}], exactly_once=True)])
sc("cache_hit_reads_no_store", ["§5 Global ID Lookup 2"],
   "The second resolve is a cache hit: the store is read once.",
   [act(1,"a"), res(2,"a",{"tag":"ReadyRoute","node":1}), res(2,"a",{"tag":"ReadyRoute","node":1}),
    exp(stats={"node":2,"store_reads":1,"cache_hits":1,"cache_misses":1})])
sc("missing_is_not_negative_cached", ["§5 Global ID Lookup 3"],
   "Missing is not cached: once the object exists the next resolve finds it.",
   [res(2,"a",{"tag":"Missing"}), act(1,"a"), res(2,"a",{"tag":"ReadyRoute","node":1}),
    exp(stats={"node":2,"store_reads":2})])
sc("creating_is_unavailable_and_not_cached", ["§5 Global ID Lookup 3","§5 Global ID Lookup 5"],
   "Creating resolves Unavailable(Creating), distinct from Missing, and is not cached.",
   [{"do":"create","node":1,"kind":A,"id":"a"}, res(2,"a",{"tag":"Unavailable","reason":"Creating"}),
    {"do":"publish_ready","node":1,"kind":A,"id":"a"}, res(2,"a",{"tag":"ReadyRoute","node":1})])
sc("releasing_is_unavailable_then_missing", ["§5 Global ID Lookup 5"],
   "Releasing resolves Unavailable(Releasing); after the release completes, Missing.",
   [act(1,"a"), {"do":"begin_release","node":1,"kind":A,"id":"a"},
    res(2,"a",{"tag":"Unavailable","reason":"Releasing"}),
    {"do":"complete_release","node":1,"kind":A,"id":"a"}, res(2,"a",{"tag":"Missing"})])
sc("store_failure_is_not_cached_send_to_missing_is_not_found", ["§5 Global ID Lookup 3","§5 Global ID Lookup 5"],
   "A send to a Missing actor ends NotFound; nothing is created, nothing cached.",
   [send(2,"nobody",exp={"tag":"NotFound"}), res(2,"nobody",{"tag":"Missing"}),
    exp(stats={"node":2,"store_reads":2})])
sc("cache_expires_at_route_cache_max_age", ["§5 Global ID Lookup 4"],
   "A cached route is used until route_cache_max_age, then the store is read again.",
   [act(1,"a"), res(2,"a",{"tag":"ReadyRoute"}), adv(14999), {"do":"lookup_cached","node":2,"kind":A,"id":"a","expect":{"hit":True}},
    adv(1), {"do":"lookup_cached","node":2,"kind":A,"id":"a","expect":{"hit":False}},
    res(2,"a",{"tag":"ReadyRoute"}), exp(stats={"node":2,"store_reads":2})])
sc("cache_off_reads_the_store_every_time", ["§5 Global ID Lookup 2","§5 Global ID Lookup 4"],
   "route_cache_max_age 0 turns the cache off: every resolve reads the store.",
   [act(1,"a"), res(2,"a",{"tag":"ReadyRoute"}), res(2,"a",{"tag":"ReadyRoute"}), exp(stats={"node":2,"store_reads":2,"cache_hits":0})],
   config={"route_cache_max_age_ms":0})
sc("higher_store_version_removes_the_entry", ["§5 Global ID Lookup 4"],
   "A node that caches a route and then becomes the object's relocation target drops the older entry on its own CAS.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), move(1,3,"a"), CARRY,
    {"do":"lookup_cached","node":3,"kind":A,"id":"a","expect":{"hit":False}},
    res(3,"a",{"tag":"ReadyRoute","node":3})])
def lc(n,i,hit,k=A): return {"do":"lookup_cached","node":n,"kind":k,"id":i,"expect":{"hit":hit}}
sc("owner_lease_invalidation_removes_that_leases_routes", ["§5 Global ID Lookup 4"],
   "The host reports that a node's owner lease ended: every cached route under that lease goes at once, no other; the next resolve reads the store, and the record that lease still holds is Unavailable(OwnerNotLive).",
   [act(1,"a"), act(2,"b"), res(3,"a",{"tag":"ReadyRoute","node":1}), res(3,"b",{"tag":"ReadyRoute","node":2}),
    {"do":"owner_lease_invalidated","node":3,"of":1,"lease":2,"expect":{"removed":0}}, lc(3,"a",True),
    {"do":"owner_lease_invalidated","node":3,"of":1,"lease":1,"expect":{"removed":1}}, lc(3,"a",False), lc(3,"b",True),
    res(3,"a",{"tag":"Unavailable","reason":"OwnerNotLive"}), exp(stats={"node":3,"store_reads":3})])
sc("store_recovery_clears_the_cache", ["§5 Global ID Lookup 4"],
   "The host reports a store recovery: every cached route goes at once; the next resolve reads the store.",
   [act(1,"a"), act(2,"b"), res(3,"a",{"tag":"ReadyRoute"}), res(3,"b",{"tag":"ReadyRoute"}),
    {"do":"store_recovered","node":3,"expect":{"removed":2}}, lc(3,"a",False), lc(3,"b",False),
    {"do":"store_recovered","node":3,"expect":{"removed":0}},
    res(3,"a",{"tag":"ReadyRoute","node":1}), exp(stats={"node":3,"store_reads":3})])
sc("stale_route_rejection_ends_unavailable_and_drops_the_entry", ["§5 Global ID Lookup 4","§5 Move And Message Follow 4"],
   "With Message Follow off, a send on a stale cached route is refused: the operation ends Unavailable(StaleRoute), the entry goes, nothing is resubmitted.",
   [act(1,"a"), res(2,"a",{"tag":"ReadyRoute","node":1}), move(1,3,"a"), CARRY,
    send(2,"a","m1",{"tag":"Submitted","to":1}), CARRY,
    exp(ended=[{"op":"m1","failure":"Unavailable","reason":"StaleRoute"}], not_delivered=["m1"]),
    {"do":"lookup_cached","node":2,"kind":A,"id":"a","expect":{"hit":False}},
    send(2,"a","m2",{"tag":"Submitted","to":3}), CARRY, exp(delivered=[{"op":"m2","node":3}])],
   config=FOLLOW_OFF)
sc("cache_must_expire_before_message_follow_closes", ["§5 Global ID Lookup 6"],
   "A config whose cache would outlive Message Follow is refused.",
   [{"do":"build","config":{"route_cache_max_age_ms":30000,"message_follow_duration_ms":30000},"expect":{"error":"CacheOutlivesFollow"}}])
sc("recreated_object_takes_a_message_routed_to_the_old_incarnation", ["§5 Global ID Lookup 7"],
   "ObjectGeneration is not a target condition: the object re-created by the same owner takes a message routed to the previous incarnation.",
   [act(1,"a"), res(2,"a",{"tag":"ReadyRoute","node":1}), {"do":"release","node":1,"kind":A,"id":"a"}, act(1,"a"),
    send(2,"a","m1",{"tag":"Submitted","to":1}), CARRY, exp(delivered=[{"op":"m1","node":1}])])
sc("an_expired_lease_is_unavailable", ["§5 Global ID Lookup 4","§5 Global ID Lookup 5"],
   "Past the owner lease the object resolves Unavailable(LeaseExpired) and a send ends there.",
   [act(1,"a"), adv(31000), res(2,"a",{"tag":"Unavailable","reason":"LeaseExpired"}),
    send(2,"a",exp={"tag":"Unavailable","reason":"LeaseExpired"})])
sc("a_spot_with_instance_intent_asks_for_cold_activation", ["§5 Global ID Lookup 5","§2.4"],
   "Only a Spot call with instance intent on a Missing Spot asks for cold activation.",
   [send(2,"room",k=P,exp={"tag":"NotFound"}), send(2,"room",k=P,instance=True,exp={"tag":"ColdActivation"}),
    send(2,"bob",instance=True,exp={"error":"InstanceIntentOnActor"})])

# ---- Move and Message Follow
sc("message_follow_relays_and_notifies_the_sender", ["§5 Move And Message Follow 1","§5 Move And Message Follow 2"],
   "After a move, a message on the old cached route is relayed with its identity; the notification drops the sender's entry so the next call goes direct.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), move(1,2,"a"), CARRY,
    send(3,"a","m1",{"tag":"Submitted","to":1}), CARRY,
    exp(delivered=[{"op":"m1","node":2}], count={"refreshed":1,"invalidated":1}, stats={"node":1,"relays":1,"notifications_sent":1}),
    send(3,"a","m2",{"tag":"Submitted","to":2}), CARRY, exp(delivered=[{"op":"m2","node":2}], exactly_once=True)])
sc("a_relayed_request_keeps_its_reply_route", ["§5 Move And Message Follow 1","§5 Reply 1"],
   "A request relayed by Message Follow is answered by the new owner on the original reply route.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), move(1,2,"a"), CARRY,
    req(3,"a","q1",{"tag":"Submitted","to":1},payload="x"), CARRY,
    exp(delivered=[{"op":"q1","node":2}], completed=[{"op":"q1","outcome":"Reply","payload":"re:x"}])])
sc("a_lost_notification_keeps_the_detour_until_the_cache_expires", ["§5 Move And Message Follow 2"],
   "With notifications lost, every message detours until the cached route expires; then the sender goes direct.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), move(1,2,"a"), CARRY, rule(drop={"command":"MessageFollow"}),
    send(3,"a","m1",{"tag":"Submitted","to":1}), CARRY, send(3,"a","m2",{"tag":"Submitted","to":1}), CARRY,
    adv(15000), send(3,"a","m3",{"tag":"Submitted","to":2}), CARRY,
    exp(delivered=[{"op":"m1","node":2},{"op":"m2","node":2},{"op":"m3","node":2}], count={"refreshed":0})])
sc("a_failed_operation_is_not_resubmitted", ["§5 Move And Message Follow 4","§5 Reply 2"],
   "A refused request completes with the route error and is not resubmitted to the new owner; the next call reaches it.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), move(1,2,"a"), CARRY,
    req(3,"a","q1",{"tag":"Submitted","to":1}), CARRY,
    exp(completed=[{"op":"q1","outcome":"Error","error":"Unavailable","reason":"StaleRoute"}], not_delivered=["q1"]),
    req(3,"a","q2",{"tag":"Submitted","to":2}), CARRY, exp(completed=[{"op":"q2","outcome":"Reply"}])],
   config=FOLLOW_OFF)
sc("the_follow_chain_stops_at_max_follow_hops", ["§2.5 hop bound"],
   "A message routed to the first of two moves' old owners needs two hops; with max_follow_hops 1 it ends Unavailable(FollowHopLimit).",
   [act(1,"a"), res(4,"a",{"tag":"ReadyRoute","node":1}), move(1,2,"a"), CARRY, move(2,3,"a"), CARRY,
    send(4,"a","m1",{"tag":"Submitted","to":1}), CARRY,
    exp(ended=[{"op":"m1","failure":"Unavailable","reason":"FollowHopLimit"}], not_delivered=["m1"])],
   nodes=4, config={"max_follow_hops":1})
sc("a_follow_route_expires_with_message_follow_duration", ["§5 Move And Message Follow 1"],
   "Past message_follow_duration the old owner no longer relays: a late message on its route is refused.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), move(1,2,"a"), CARRY, rule(drop={"command":"MessageFollow"}),
    adv(10000), send(3,"a","m1",{"tag":"Submitted","to":1}), CARRY, exp(delivered=[{"op":"m1","node":2}]),
    adv(10000), {"do":"lookup_cached","node":3,"kind":A,"id":"a","expect":{"hit":False}}],
   config={"route_cache_max_age_ms":15000,"message_follow_duration_ms":20000})
sc("per_actor_a_spot_and_an_actor_of_one_id_move_on_their_own", ["§5 Move And Message Follow 3"],
   "ToSpot follows the Spot's authority and ToActor the Actor's: a Spot moving while the Actor of the same ID stays sealed does not carry the Actor's work.",
   [act(1,"room",P), act(1,"room"), res(4,"room",{"tag":"ReadyRoute"},P), res(4,"room",{"tag":"ReadyRoute"}),
    rule(hold={"command":"RelocationRestore","to":3}), move(1,3,"room"), move(1,2,"room",P),
    send(4,"room","s1",k=P), send(4,"room","a1"), CARRY,
    exp(delivered=[{"op":"s1","node":2}], not_delivered=["a1"], owner={"kind":P,"id":"room","node":2}),
    exp(owner={"kind":A,"id":"room","node":1}),
    {"do":"release_held"}, CARRY,
    exp(delivered=[{"op":"a1","node":3}], owner={"kind":A,"id":"room","node":3}, exactly_once=True)],
   nodes=4)

# ---- Relocation handoff
sc("relocation_holds_on_the_source_and_delivers_on_the_target", ["§3.3 steps 1-5"],
   "From begin_relocation on, nothing runs on the source: work is held, relayed in order and delivered by the target after its owner CAS.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), rule(hold={"command":"RelocationRestore"}), move(1,2,"a",state="s=1"),
    send(3,"a","m1"), req(3,"a","q1"), send(3,"a","m2"), CARRY,
    exp(not_delivered=["m1","q1","m2"], count={"held":3}),
    {"do":"release_held"}, CARRY,
    exp(order={"node":2,"ops":["m1","q1","m2"]}, completed=[{"op":"q1","outcome":"Reply"}], owner={"kind":A,"id":"a","node":2},
        events=[{"node":2,"tag":"Relocation.Restore"},{"node":1,"tag":"Relocation.Cutover"},{"node":2,"tag":"Relocation.CommitDue"},
                {"node":2,"tag":"Relocation.Committed"},{"node":1,"tag":"Relocation.HandedOff"}], exactly_once=True)])
sc("relocation_abort_before_relay_ready_runs_the_work_on_the_source", ["§3.3 failure before relay-ready"],
   "The source's host gives the move up; once the target confirms, the held work runs on the source, in order, with no store read.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), rule(hold={"command":"RelocationRestore"}), move(1,2,"a"),
    send(3,"a","m1"), send(3,"a","m2"), CARRY, {"do":"abort_relocation","node":1,"kind":A,"id":"a"}, CARRY,
    exp(order={"node":1,"ops":["m1","m2"]}, events=[{"node":1,"tag":"Relocation.Aborting"},{"node":1,"tag":"Relocation.Aborted"}]),
    {"do":"release_held"}, CARRY, exp(owner={"kind":A,"id":"a","node":1}, exactly_once=True)])
sc("relocation_restore_failure_aborts", ["§3.3 failure before relay-ready"],
   "A target whose host cannot restore aborts; the source takes its work back.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), rule(hold={"command":"RelocationRestore"}), move(1,2,"a"),
    send(3,"a","m1"), CARRY, {"do":"release_held"}, CARRY,
    exp(delivered=[{"op":"m1","node":1}], owner={"kind":A,"id":"a","node":1}, events=[{"node":2,"tag":"Relocation.Aborted"},{"node":1,"tag":"Relocation.Aborted"}])],
   host={"restore":"fail"})
sc("relocation_without_relay_ready_times_out_and_aborts", ["§3.3 failure before relay-ready"],
   "No relay-ready within relocation_timeout: the source gives up, the target confirms, the work runs on the source.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute","node":1}), move(1,2,"a"), send(3,"a","m1"), CARRY,
    exp(not_delivered=["m1"]), adv(5000), CARRY,
    exp(delivered=[{"op":"m1","node":1}], events=[{"node":1,"tag":"Relocation.Aborting"},{"node":1,"tag":"Relocation.Aborted"}], owner={"kind":A,"id":"a","node":1})],
   host={"restore":"ignore"})
sc("relocation_commits_1000_ms_after_relay_ready_without_a_cutover", ["§3.3 step 4"],
   "A lost cutover does not stall the move: the target commits 1,000 ms after relay-ready.",
   [act(1,"a"), rule(drop={"command":"RelocationCutover"}), move(1,2,"a"), CARRY, exp(owner={"kind":A,"id":"a","node":None}),
    adv(999), CARRY, exp(owner={"kind":A,"id":"a","node":None}), adv(1), CARRY, exp(owner={"kind":A,"id":"a","node":2},
    events=[{"node":2,"tag":"Relocation.Committed"},{"node":1,"tag":"Relocation.HandedOff"}])])
sc("relocation_moves_back_and_forth_delivering_once", ["§3.3","§2.5"],
   "A->B->A->C with traffic between: every message delivered exactly once, by the owner of the moment (m1, still in flight when the first move seals the source, follows the object to B).",
   [act(1,"a"), res(4,"a",{"tag":"ReadyRoute"}), send(4,"a","m1"), move(1,2,"a"), send(4,"a","m2"), CARRY,
    send(4,"a","m3"), move(2,1,"a"), send(4,"a","m4"), CARRY, send(4,"a","m5"), move(1,3,"a"), send(4,"a","m6"), CARRY,
    send(4,"a","m7"), CARRY, exp(exactly_once=True, owner={"kind":A,"id":"a","node":3}, delivered=[{"op":"m1","node":2},{"op":"m7","node":3}])],
   nodes=4)
sc("relocation_a_second_begin_is_refused", ["§3.3 bad input"],
   "A second begin_relocation of an object already relocating is a typed error and changes nothing.",
   [act(1,"a"), rule(hold={"command":"RelocationRestore"}), move(1,2,"a"), move(1,3,"a",expect={"error":"AlreadyRelocating"}),
    move(1,2,"b",expect={"error":"NotOwned"}), {"do":"release_held"}, CARRY, exp(owner={"kind":A,"id":"a","node":2})])
sc("relocation_bad_input_is_refused", ["§3.3 bad input"],
   "A state over the bound, a move to itself, a move of what the node does not own and restored/abort calls with nothing relocating are typed errors.",
   [act(1,"a"), move(1,2,"a",state="0123456789",expect={"error":"StateTooLarge"}), move(1,1,"a",expect={"error":"TargetIsSelf"}),
    move(2,1,"a",expect={"error":"NotOwned"}), {"do":"abort_relocation","node":1,"kind":A,"id":"a","expect":{"error":"NotRelocating"}},
    send(3,"a","m1"), CARRY, exp(delivered=[{"op":"m1","node":1}])],
   config={"max_relocation_state_bytes":8})
sc("relocation_past_relay_ready_does_not_roll_back", ["§3.3 after relay-ready"],
   "After relay-ready the source cannot abort: the move goes on to the target.",
   [act(1,"a"), rule(hold={"command":"RelocationCutover"}), move(1,2,"a"), CARRY,
    {"do":"abort_relocation","node":1,"kind":A,"id":"a","expect":{"error":"AfterRelayReady"}},
    {"do":"abort_relocation","node":2,"kind":A,"id":"a","expect":{"error":"AfterRelayReady"}},
    {"do":"release_held"}, CARRY, exp(owner={"kind":A,"id":"a","node":2})])
sc("relocation_requests_are_answered_once_by_the_new_owner", ["§3.3","§5 Reply 1"],
   "Requests caught by a move are held, relayed and answered by the new owner, each once.",
   [act(1,"a"), res(3,"a",{"tag":"ReadyRoute"}), rule(hold={"command":"RelocationRestore"}), move(1,2,"a"),
    req(3,"a","q1",payload="1"), req(3,"a","q2",payload="2"), CARRY, {"do":"release_held"}, CARRY,
    exp(completed=[{"op":"q1","outcome":"Reply","payload":"re:1"},{"op":"q2","outcome":"Reply","payload":"re:2"}],
        delivered=[{"op":"q1","node":2},{"op":"q2","node":2}])])
sc("relocation_two_objects_at_once", ["§3.3"],
   "Two objects moving at the same time keep their own queues.",
   [act(1,"a"), act(2,"b"), res(4,"a",{"tag":"ReadyRoute"}), res(4,"b",{"tag":"ReadyRoute"}), move(1,3,"a"), move(2,3,"b"),
    send(4,"a","a1"), send(4,"b","b1"), CARRY, exp(delivered=[{"op":"a1","node":3},{"op":"b1","node":3}], exactly_once=True)],
   nodes=4)

# ---- Sessions
def sess(node, session): return {"do":"open_session","node":node,"session":session}
def bind(node, session, i, owner): return {"do":"bind","node":node,"session":session,"id":i,"owner":owner}
def ss(node, session, i, payload, name=None, e=None):
    d={"do":"session_send","node":node,"session":session,"id":i,"payload":payload}
    if name: d["as"]=name
    if e: d["expect"]=e
    return d
sc("session_bind_stores_the_route_and_relays_without_lookup", ["§5 Session Bind And Relay 1","§5 Session Bind And Relay 2"],
   "Bind verifies the ActorRef's route once; relays use the stored route and read no store.",
   [act(2,"a"), sess(1,7), bind(1,7,"a",2), CARRY, exp(events=[{"node":1,"tag":"Session.Bound"}]),
    ss(1,7,"a","hi","r1",{"tag":"Sent"}), CARRY, exp(events=[{"node":2,"tag":"SessionDeliver"}], stats={"node":1,"store_reads":0})])
sc("session_route_follows_command_44_after_a_move", ["§5 Session Bind And Relay 3"],
   "A bound Actor moves: the Session is sealed (42/43), relays are held, and command 44 switches the stored route and releases them to the target.",
   [act(2,"a"), sess(1,7), bind(1,7,"a",2), CARRY, rule(hold={"command":"RelocationRestore"}), move(2,3,"a"), CARRY,
    exp(events=[{"node":2,"tag":"Session.Sealed"}]), ss(1,7,"a","held","r1",{"tag":"Held"}), {"do":"release_held"}, CARRY,
    exp(events=[{"node":3,"tag":"SessionDeliver"}], no_events=[{"node":2,"tag":"SessionDeliver"}]),
    ss(1,7,"a","after",None,{"tag":"Sent"}), CARRY])
sc("session_other_actor_keeps_its_route", ["§5 Session Bind And Relay 3"],
   "Command 44 changes only the moving Actor's binding: another Actor on the same Session is untouched.",
   [act(2,"a"), act(2,"b"), sess(1,7), bind(1,7,"a",2), bind(1,7,"b",2), CARRY,
    rule(hold={"command":"RelocationRestore"}), move(2,3,"a"), CARRY,
    ss(1,7,"a","x",None,{"tag":"Held"}), ss(1,7,"b","y",None,{"tag":"Sent"}), {"do":"release_held"}, CARRY,
    ss(1,7,"b","z",None,{"tag":"Sent"}), CARRY, exp(owner={"kind":A,"id":"b","node":2})])
sc("session_abort_releases_held_relays_to_the_source", ["§3.3 failure before relay-ready"],
   "An abort before relay-ready: command 44 abort releases the held relays to the source.",
   [act(2,"a"), sess(1,7), bind(1,7,"a",2), CARRY, rule(hold={"command":"RelocationRestore"}), move(2,3,"a"), CARRY,
    ss(1,7,"a","x",None,{"tag":"Held"}), {"do":"abort_relocation","node":2,"kind":A,"id":"a"}, CARRY,
    exp(events=[{"node":2,"tag":"Relocation.Aborted"},{"node":2,"tag":"SessionDeliver"}], owner={"kind":A,"id":"a","node":2})])
sc("session_seal_without_command_44_closes_the_session", ["§3.3 step 8"],
   "No command 44 within the seal timeout: the Session owner closes the Session.",
   [act(2,"a"), sess(1,7), bind(1,7,"a",2), CARRY, rule(drop={"to":3}), move(2,3,"a"), CARRY,
    ss(1,7,"a","x",None,{"tag":"Held"}), adv(10000), exp(events=[{"node":1,"tag":"Session.Closed"}])])
sc("session_send_on_an_unknown_session_is_an_error", ["§5 Session Bind And Relay bad input"],
   "A relay on a Session never opened, or to an Actor not bound, is a typed error.",
   [act(2,"a"), ss(1,9,"a","x",None,{"error":"UnknownSession"}), sess(1,7), ss(1,7,"a","x",None,{"error":"NotBound"})])
sc("session_disconnect_reaches_the_actor", ["§5 Session Bind And Relay 2"],
   "A physical disconnect is delivered to the bound Actor on the stored route.",
   [act(2,"a"), sess(1,7), bind(1,7,"a",2), CARRY, {"do":"disconnect","node":1,"session":7,"physical":True}, CARRY,
    exp(events=[{"node":2,"tag":"SessionDeliver"}], stats={"node":1,"store_reads":0})])
sc("session_push_uses_the_stored_binding_route", ["§5 Session Bind And Relay 2"],
   "The bound Actor's owner pushes on the binding it registered: the Session owner gets it with no store read; a Session not bound there takes no push.",
   [act(2,"a"), sess(1,7), sess(1,8), bind(1,7,"a",2), CARRY,
    {"do":"push","node":2,"id":"a","session":7,"session_node":1,"payload":"p1","expect":{"pushed":True}}, CARRY,
    exp(events=[{"node":1,"tag":"Session.Pushed"}], stats={"node":1,"store_reads":0}),
    {"do":"push","node":2,"id":"a","session":8,"session_node":1,"payload":"p2","expect":{"pushed":False}},
    {"do":"push","node":2,"id":"a","session":7,"session_node":1,"payload":"x"*65,"expect":{"error":"PayloadTooLarge"}}],
   config={"max_message_bytes":64})

# ---- Replies
sc("a_reply_uses_the_reply_route_without_lookup", ["§5 Reply 1"],
   "The owner answers on the request's reply route; it never looks the requester up.",
   [act(1,"a"), req(2,"a","q1",{"tag":"Submitted","to":1},payload="x"), CARRY,
    exp(completed=[{"op":"q1","outcome":"Reply","payload":"re:x"}], stats={"node":1,"store_reads":0})])
sc("a_request_times_out_and_its_late_reply_is_dropped", ["§4.3","§5 Reply"],
   "The deadline is the request's one terminal result; the reply arriving after it is Late.",
   [act(1,"a"), rule(hold={"command":"Reply"}), req(2,"a","q1",timeout_ms=100), CARRY, adv(100),
    exp(completed=[{"op":"q1","outcome":"Timeout"}]), {"do":"release_held"}, CARRY, exp(count={"late":1})])
sc("a_cancelled_request_ends_once", ["§4.3"],
   "Cancel is the request's one terminal result; the reply after it is Late.",
   [act(1,"a"), req(2,"a","q1"), {"do":"cancel","node":2,"op":"q1","expect":{"cancelled":True}},
    {"do":"cancel","node":2,"op":"q1","expect":{"cancelled":False}}, CARRY,
    exp(completed=[{"op":"q1","outcome":"Cancelled"}], count={"late":1})])
sc("an_undecodable_request_is_answered_with_a_decode_error", ["§4.3"],
   "A request cut short in its payload still carries its reply route: its owner answers it with a structured Decode error reply on that route (never looking the requester up), and the requester's request completes with it once; nothing is delivered.",
   [act(1,"a"), rule(truncate={"command":"Request"}), req(2,"a","q1",{"tag":"Submitted","to":1},timeout_ms=100), CARRY,
    exp(completed=[{"op":"q1","outcome":"Error","error":"Replied","kind":"Decode"}], not_delivered=["q1"],
        no_events=[{"tag":"Dropped"}],
        stats={"node":1,"frames_dropped":1,"requests_undecodable_answered":1,"requests_unroutable":0,"store_reads":0}),
    adv(100), exp(completed=[{"op":"q1","outcome":"Error","error":"Replied","kind":"Decode"}], count={"late":0}),
    rule(truncate=None), req(2,"a","q2",payload="x"), CARRY,
    exp(completed=[{"op":"q2","outcome":"Reply","payload":"re:x"}], delivered=[{"op":"q2","node":1}])])
sc("a_request_corrupted_before_its_reply_route_is_dropped_and_times_out", ["§4.3"],
   "A request whose target kind byte is corrupted cannot give back its reply route: its owner drops it (counted unroutable, no answer), and the requester's request ends Timeout at its deadline.",
   [act(1,"a"), rule(corrupt_kind={"command":"Request"}), req(2,"a","q1",{"tag":"Submitted","to":1},timeout_ms=100), CARRY,
    exp(not_delivered=["q1"], events=[{"node":1,"tag":"Dropped"}], count={"completed":0,"in_flight":0},
        stats={"node":1,"frames_dropped":1,"requests_unroutable":1,"requests_undecodable_answered":0}),
    adv(99), exp(count={"completed":0}), adv(1), exp(completed=[{"op":"q1","outcome":"Timeout"}])])
sc("a_request_to_a_missing_object_is_not_found", ["§5 Reply","§2.4"],
   "A request to an ID with no authority ends NotFound at once; nothing is pending.",
   [req(2,"nobody",exp={"tag":"NotFound"})])

# ---- Manual peers
sc("manual_peer_endpoint_only_is_not_placement_evidence", ["§2.3"],
   "An endpoint-only intent is never used as the route to a node.",
   [{"do":"add_manual_peer","node":1,"endpoint":"tcp://b:7000"}, exp(peer_endpoint={"node":1,"rid":2,"endpoint":None})])
sc("manual_peer_descriptor_installs_all_values", ["§2.3"],
   "Once the store holds the node's descriptor, the manual endpoint is replaced with all its values and becomes the route to it.",
   [{"do":"publish_descriptor","node":2,"endpoint":"tcp://b:7000","identity":"node-b"},
    {"do":"ensure_manual_peer","node":1,"endpoint":"tcp://b:7000","expect":{"replacement":True,"rid":2}},
    {"do":"peer_opened","node":1,"endpoint":"tcp://b:7000","rid":2},
    exp(peer_endpoint={"node":1,"rid":2,"endpoint":"tcp://b:7000"})])
sc("manual_peer_without_descriptor_has_no_replacement", ["§2.3"],
   "A manual endpoint with no descriptor in the store gets no replacement.",
   [{"do":"ensure_manual_peer","node":1,"endpoint":"tcp://nowhere:1","expect":{"replacement":False}}])

# ---- Bad input
sc("bad_input_empty_id", ["bad input"],
   "An empty ID is refused by every call that takes one.",
   [res(1,"",{"error":"EmptyObjectId"}), send(1,"",exp={"error":"EmptyObjectId"}), req(1,"",exp={"error":"EmptyObjectId"}),
    {"do":"activate","node":1,"kind":A,"id":"","expect":{"error":"EmptyObjectId"}}])
sc("bad_input_id_over_the_cap", ["bad input"],
   "An ID over max_object_id_bytes is refused; one at the cap is fine.",
   [res(1,"123456789",{"error":"ObjectIdTooLong"}), act(1,"12345678"), res(2,"12345678",{"tag":"ReadyRoute"})],
   config={"max_object_id_bytes":8})
sc("bad_input_payload_over_the_bound", ["bad input"],
   "A payload over max_message_bytes is refused before anything is sent.",
   [act(1,"a"), send(2,"a",payload="0123456789",exp={"error":"PayloadTooLarge"}), req(2,"a",payload="0123456789",exp={"error":"PayloadTooLarge"}),
    exp(count={"in_flight":0})], config={"max_message_bytes":8})
sc("bad_config_is_refused", ["bad input"],
   "max_follow_hops over 8 is refused at build.",
   [{"do":"build","config":{"max_follow_hops":9},"expect":{"error":"FollowHops"}}])

os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith('.json'): os.remove(os.path.join(OUT,f))
for d in S:
    with open(os.path.join(OUT, d["name"]+".json"),'w') as f:
        json.dump(d, f, indent=2, ensure_ascii=False); f.write("\n")
print(len(S))
