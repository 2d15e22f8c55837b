// cosmos.slashing.v1beta1.Query over the slashing keeper at the queried block (x/slashing/keeper/grpc_query.go):
// signing infos by valcons address, in consensus-address order, and the module's parameters.
import {
  QueryParamsResponse,
  QuerySigningInfoResponse,
  QuerySigningInfosResponse,
} from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import type { ValidatorSigningInfo } from 'cosmjs-types/cosmos/slashing/v1beta1/slashing';
import { NotFoundError } from '../../../errors/index.ts';
import { paginate } from '../../bank/pagination.ts';
import { decodeRequest } from '../../bank/proto.ts';
import type { SigningInfo } from '../types.ts';
import { Bech32Codec, compareBytes, duration, ModuleQueries, pageKey, pageResponse, timestamp } from './common.ts';
import type { ModulesAt } from './common.ts';

/** The service's gRPC name. */
export const SLASHING_QUERY_SERVICE = 'cosmos.slashing.v1beta1.Query';

const utf8 = new TextEncoder();

/** The slashing query service. */
export function slashingQueries(modulesAt: ModulesAt, prefix: string): ModuleQueries {
  const codec = new Bech32Codec(prefix);
  const proto = (i: SigningInfo): ValidatorSigningInfo => ({
    address: codec.consString(i.address),
    startHeight: i.startHeight,
    indexOffset: i.indexOffset,
    jailedUntil: timestamp(i.jailedUntil),
    tombstoned: i.tombstoned,
    missedBlocksCounter: i.missedBlocksCounter,
  });
  // The SDK's slashing Params carry its Decs as bytes: the ASCII of the internal integer form.
  const decBytes = (d: bigint) => utf8.encode(d.toString());

  return new ModuleQueries(`/${SLASHING_QUERY_SERVICE}/`, modulesAt, {
    Params(data, m) {
      decodeRequest(data, {});
      const p = m.env.params;
      return QueryParamsResponse.encode({
        params: {
          signedBlocksWindow: p.signedBlocksWindow,
          minSignedPerWindow: decBytes(p.minSignedPerWindow),
          downtimeJailDuration: duration(p.downtimeJailDuration),
          slashFractionDoubleSign: decBytes(p.slashFractionDoubleSign),
          slashFractionDowntime: decBytes(p.slashFractionDowntime),
        },
      }).finish();
    },
    SigningInfo(data, m) {
      const text = decodeRequest(data, { 1: 'cons_address' }).strings.cons_address!;
      const info = m.slashing.signingInfo(codec.cons(text, 'invalid request'));
      if (info === undefined) throw new NotFoundError(`SigningInfo not found for validator ${text}`);
      return QuerySigningInfoResponse.encode({ valSigningInfo: proto(info) }).finish();
    },
    SigningInfos(data, m) {
      const req = decodeRequest(data, {}, 1);
      const all = m.slashing.signingInfos().sort((a, b) => compareBytes(a.address, b.address));
      const { page, res } = paginate(all, (i) => pageKey(i.address), req.page);
      return QuerySigningInfosResponse.encode({ info: page.map(proto), pagination: pageResponse(res) }).finish();
    },
  });
}
